package htmlview

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile writes a page to path whole or not at all: into a temporary
// file beside it, renamed into place once complete, so a failed write
// never leaves half a page (or clobbers an earlier one).
func WriteFile(path string, page []byte) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("writing %s: is a directory", path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		// Name the page, not the temporary file.
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(page)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
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
