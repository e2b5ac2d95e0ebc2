package htmlview

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "page.html")
	if err := WriteFile(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Errorf("page.html holds %q, want the second page", b)
	}
	// A name the page cannot take (a directory is there): an error, and
	// nothing left behind.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(sub, []byte("three")); err == nil || err.Error() != "writing "+sub+": is a directory" {
		t.Errorf("writing over a directory: %v", err)
	}
	missing := filepath.Join(dir, "none", "page.html")
	if err := WriteFile(missing, []byte("four")); err == nil || err.Error() != "writing "+missing+": no such file or directory" {
		t.Errorf("writing into a missing directory: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want page.html and sub", names)
	}
}
