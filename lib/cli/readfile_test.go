package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestReadFile checks that a file read in halves is the file, at sizes
// around the one from which it is split and with a size that does not
// halve evenly.
func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, size := range []int{0, 1, splitRead - 1, splitRead, splitRead + 1, 3*splitRead + 7} {
		want := make([]byte, size)
		for i := range want {
			want[i] = byte(i*7 + i/251)
		}
		name := filepath.Join(dir, "f")
		if err := os.WriteFile(name, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readFile(name)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("size %d: read %d bytes that differ from the file's", size, len(got))
		}
	}
	if _, err := readFile(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v, want not exist", err)
	}
}
