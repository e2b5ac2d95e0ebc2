package packgen

import (
	"strings"
	"testing"
)

// Edits keep a file about its size, and every old and new text stays
// unique in it, however many edits a year of sessions makes of a short
// file: replacing two lines by one in a file that small would empty it.
func TestProjectEditShortFile(t *testing.T) {
	r := &yearRand{x: 1}
	p := &project{files: map[string][]string{}}
	p.files["a.go"] = p.goFile("a", 20, r)
	for i := range 20000 {
		old, new := p.edit("a.go", r, "s")
		text := p.text("a.go")
		if strings.Count(text, new) != 1 || strings.Contains(text, old) {
			t.Fatalf("edit %d: old %q or new %q not unique", i, old, new)
		}
		if n := len(p.files["a.go"]); n < 25 {
			t.Fatalf("edit %d: %d lines left", i, n)
		}
	}
}
