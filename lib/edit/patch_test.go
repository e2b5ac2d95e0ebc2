package edit

import (
	"reflect"
	"strings"
	"testing"
)

func TestApplyPatch(t *testing.T) {
	t.Parallel()
	const orig = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n\nfunc other() {\n\treturn\n}\n"
	tests := []struct{ name, patch, want string }{
		{"update", "*** Begin Patch\n*** Update File: m.go\n@@ func main() {\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")\n*** End Patch",
			strings.Replace(orig, `"hi"`, `"hello"`, 1)},
		{"no @@ on the first chunk", "*** Begin Patch\n*** Update File: m.go\n import \"fmt\"\n+import \"os\"\n*** End Patch",
			strings.Replace(orig, "import \"fmt\"\n", "import \"fmt\"\nimport \"os\"\n", 1)},
		{"two chunks", "*** Begin Patch\n*** Update File: m.go\n@@\n-package main\n+package app\n@@ func other() {\n-\treturn\n+\treturn // done\n*** End Patch",
			strings.Replace(strings.Replace(orig, "package main", "package app", 1), "\treturn\n", "\treturn // done\n", 1)},
		{"pure addition at the end", "*** Begin Patch\n*** Update File: m.go\n@@\n+// end\n*** End Patch", orig + "// end\n"},
		{"trailing white space tolerated", "*** Begin Patch\n*** Update File: m.go\n@@\n-func other() {   \n+func other2() {\n*** End Patch",
			strings.Replace(orig, "func other()", "func other2()", 1)},
		{"end of file", "*** Begin Patch\n*** Update File: m.go\n@@\n \treturn\n-}\n+}\n+// eof\n*** End of File\n*** End Patch", orig + "// eof\n"},
		{"heredoc wrapper", "<<'EOF'\n*** Begin Patch\n*** Update File: m.go\n@@\n-package main\n+package x\n*** End Patch\nEOF\n", strings.Replace(orig, "main\n\nimport", "x\n\nimport", 1)},
		{"missing lines", "*** Begin Patch\n*** Update File: m.go\n@@\n-nothing like this\n+x\n*** End Patch", "error: chunk 0: the lines it replaces are not in the file"},
		{"missing context", "*** Begin Patch\n*** Update File: m.go\n@@ func nope()\n-x\n+y\n*** End Patch", `error: chunk 0: context "func nope()" not found`},
	}
	for _, tt := range tests {
		got, err := func() (string, error) {
			ops, err := ParsePatch(tt.patch)
			if err != nil {
				return "", err
			}
			return ApplyChunks(orig, ops[0].Chunks)
		}()
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
	// A pure addition to a file ending in a blank line takes its place,
	// as apply_patch inserts it before that line and then ends the file
	// with a single line break.
	if got, err := ApplyChunks("a\n\n", []PatchChunk{{New: []string{"b"}}}); err != nil || got != "a\nb\n" {
		t.Errorf("addition before a last blank line: %q, %v", got, err)
	}
	ops, err := ParsePatch("*** Begin Patch\n*** Add File: a/new.txt\n+one\n+two\n*** Delete File: old.txt\n*** Update File: x.go\n*** Move to: y.go\n@@\n-a\n+b\n*** End Patch\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []PatchOp{
		{Kind: PatchAdd, Path: "a/new.txt", Add: "one\ntwo\n"},
		{Kind: PatchDelete, Path: "old.txt"},
		{Kind: PatchUpdate, Path: "x.go", MoveTo: "y.go", Chunks: []PatchChunk{{Old: []string{"a"}, New: []string{"b"}}}},
	}
	if !reflect.DeepEqual(ops, want) {
		t.Errorf("ParsePatch:\n got %+v\nwant %+v", ops, want)
	}
	for _, bad := range []string{"", "*** Begin Patch\n*** Frobnicate: x\n*** End Patch", "*** Begin Patch\n*** Update File: x\n*** End Patch", "no patch"} {
		if _, err := ParsePatch(bad); err == nil {
			t.Errorf("ParsePatch(%q) accepted", bad)
		}
	}
}
