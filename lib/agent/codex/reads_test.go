package codex_test

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/formatstest"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// TestCodexReadsFixture imports a rollout whose file reads take the forms
// Codex records (exec_command with a text frame, shell with a JSON
// result): three reads cover src/parse.go to its end, so it is known
// whole and its patch gives an output; two reads of docs/notes.md make a
// partial input of two ranges; go.mod, shorter than head asked, is whole;
// a failed read is named.
func TestCodexReadsFixture(t *testing.T) {
	t.Parallel()
	const path = "testdata/codex/reads.jsonl"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, rep, err := formats.Import(codex.Name, data, importer.Options{Name: path})
	if err != nil {
		t.Fatal(err)
	}
	importtest.Golden(t, "testdata/codex/reads.golden.json", canon.Indent(out), *formatstest.Update)
	l, err := execlog.Parse(out, execlog.Options{})
	if err != nil {
		t.Fatalf("ctx-pack would reject the log: %v", err)
	}
	var got []string
	for _, in := range l.Inputs {
		got = append(got, fmt.Sprintf("%s %q %v %d", in.Name, in.Seen, in.Lines, in.TotalLines))
	}
	want := []string{`src/parse.go "" [] 0`, `docs/notes.md "partial" [[1 3] [10 12]] 0`, `go.mod "" [] 0`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("inputs = %q, want %q", got, want)
	}
	wantWarnings := []string{
		`command "sed -n '1,40p' src/parse_test.go" exited with code 2; what it printed is not recorded`,
	}
	if got := gjson.GetBytes(out, `outputs.#(name=="src/parse.go").content`).String(); !strings.Contains(got, "\t\t\tout = append(out, f)\n") || !strings.HasPrefix(got, "package parse\n") {
		t.Errorf("output src/parse.go = %q, want the file as patched", got)
	}
	if !reflect.DeepEqual(rep.Warnings, wantWarnings) {
		t.Errorf("warnings:\n got %q\nwant %q", rep.Warnings, wantWarnings)
	}
}
