package edit

import (
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
