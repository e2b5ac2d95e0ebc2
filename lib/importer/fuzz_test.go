package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/execlog"
)

// FuzzImport feeds arbitrary bytes to every importer (and to Detect): none
// may panic, and whatever an importer accepts must come out as canonical
// JSON that ctx-pack accepts.
func FuzzImport(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*")
	for _, s := range seeds {
		if filepath.Ext(s) == ".json" && bytes.Contains([]byte(s), []byte(".golden.")) {
			continue
		}
		if data, err := os.ReadFile(s); err == nil && len(data) < 16<<10 {
			for i, name := range Formats() {
				if filepath.Base(filepath.Dir(s)) == name {
					f.Add(data, uint8(i))
				}
			}
		}
	}
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"/p/x"}}]},"cwd":"/p"}`), uint8(1))
	f.Add([]byte(`{"timestamp":"x","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":[1]}}`), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		format := Formats()[int(which)%len(Formats())]
		Detect("", data)
		out, rep, err := Import(format, data, Options{})
		if err != nil {
			return
		}
		if c, err := canon.Canonicalize(out); err != nil || !bytes.Equal(c, out) {
			t.Fatalf("%s: output is not canonical (%v):\n%s", format, err, out)
		}
		if _, err := execlog.Parse(out, execlog.Options{}); err != nil {
			t.Fatalf("%s: ctx-pack would reject the output: %v\n%s", format, err, out)
		}
		if rep.Mapped+rep.Skipped != rep.Records {
			t.Fatalf("%s: report %+v does not add up", format, rep)
		}
	})
}
