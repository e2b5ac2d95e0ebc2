package edit

import (
	"errors"
	"strings"
	"testing"
)

// FuzzApplyPatch applies arbitrary patches to arbitrary files: no panic,
// and an applied update is empty or ends in a newline, as apply_patch
// writes it.
func FuzzApplyPatch(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a\n@@ ctx\n-x\n+y\n*** End of File\n*** End Patch", "ctx\nx\n")
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n*** Update File: c\n*** Move to: d\n@@\n+z\n*** End Patch", "")
	f.Add("<<'EOF'\n*** Begin Patch\n*** Update File: a\n keep\n-\n+\n*** End Patch\nEOF", "keep\n\n")
	f.Fuzz(func(t *testing.T, patch, original string) {
		ops, err := ParsePatch(patch)
		if err != nil {
			return
		}
		for _, op := range ops {
			if op.Kind != PatchUpdate {
				continue
			}
			out, err := ApplyChunks(original, op.Chunks)
			if err == nil && out != "" && !strings.HasSuffix(out, "\n") {
				t.Fatalf("applied update %q does not end in a newline", out)
			}
		}
	})
}

// FuzzParse reads arbitrary parameters for each edit tool and applies
// what it accepts to arbitrary content: no panic; a change names a path
// Paths lists, and a conflict is a *Conflict.
func FuzzParse(f *testing.F) {
	f.Add("Edit", `{"file_path":"a","old_string":"x","new_string":"y"}`, "x x\n")
	f.Add("MultiEdit", `{"file_path":"a","edits":[{"old_string":"","new_string":"y"}]}`, "")
	f.Add("shell", `{"command":["bash","-lc","cd d && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: b\n+x\n*** End Patch\nEOF"]}`, "")
	f.Add("apply_patch", `"*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-x\n+y\n*** End Patch"`, "x\n")
	f.Add("write_file", `{"path":"a","content":"z"}`, "")
	f.Fuzz(func(t *testing.T, tool, params, content string) {
		e, err := Parse(tool, []byte(params))
		if err != nil || e == nil {
			return
		}
		paths := map[string]bool{}
		for _, p := range e.Paths() {
			paths[p] = true
		}
		changes, err := e.Apply(func(p string) (string, error) {
			if !paths[p] {
				t.Fatalf("Apply read %q, which Paths does not list", p)
			}
			return content, nil
		})
		var c *Conflict
		if err != nil && !errors.As(err, &c) && !errors.Is(err, ErrUnsupported) {
			t.Fatalf("Apply: %v", err)
		}
		for _, ch := range changes {
			if !paths[ch.Path] || ch.From != "" && !paths[ch.From] {
				t.Fatalf("change of %q (from %q) not among Paths %v", ch.Path, ch.From, e.Paths())
			}
		}
	})
}
