package formats_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
)

// FuzzWorkspace imports arbitrary Claude Code and Codex sessions, seeded
// with sessions that read (whole and in part: Read with offset, sed -n,
// head, nl -ba), list, write, edit and patch files: none may
// panic, and whatever inputs and outputs the workspace adds must be a log
// ctx-pack accepts (clean unique names, partial inputs whose lines agree
// with their content).
func FuzzWorkspace(f *testing.F) {
	tree := sharedtest.FixtureTree(f, "..", formats.Formats())
	for _, name := range []string{"workspace/claude-code", "workspace/codex", "codex/reads"} {
		data, err := os.ReadFile(filepath.Join(tree, name+".jsonl"))
		if err != nil {
			f.Fatal(err)
		}
		rollout := name != "workspace/claude-code"
		f.Add(data, rollout)
		// Each line alone, so that the fuzzer starts from small inputs.
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			f.Add(line, rollout)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, rollout bool) {
		format := claudecode.Name
		if rollout {
			format = codex.Name
		}
		out, _, err := formats.Import(format, data, importer.Options{})
		if err != nil {
			return
		}
		l, err := execlog.Parse(out, execlog.Options{})
		if err != nil {
			t.Fatalf("ctx-pack would reject the output: %v\n%s", err, out)
		}
		for _, in := range l.Inputs {
			if strings.HasPrefix(in.Name, "/") {
				t.Fatalf("input %q is not relative", in.Name)
			}
		}
	})
}
