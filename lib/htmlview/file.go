package htmlview

import (
	"fmt"
	"io"
	"os"

	"github.com/ctx-tools/ctx/lib/store"
)

// WriteFile writes a page to path whole or not at all
// (store.WriteFileAtomic), so a failed write never leaves half a page (or
// clobbers an earlier one).
func WriteFile(path string, page []byte) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("writing %s: is a directory", path)
	}
	if err := store.WriteFileAtomic(path, page, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Write writes a page to file (see WriteFile), or to w when file is ""
// or "-".
func Write(w io.Writer, file string, page []byte) error {
	if file != "" && file != "-" {
		return WriteFile(file, page)
	}
	if _, err := w.Write(page); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}
