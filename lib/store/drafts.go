package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrDraftExists reports a draft that PutDraft would replace.
var ErrDraftExists = errors.New("draft already exists")

// CheckDraftName reports whether name can name a draft (drafts/NAME.json).
func CheckDraftName(name string) error {
	if name == "" {
		return errors.New("empty draft name")
	}
	if err := CheckPlainName("draft", name); err != nil {
		return err
	}
	if strings.HasSuffix(name, ".json") {
		return fmt.Errorf("invalid draft name %q: give it without .json (the draft is drafts/NAME.json)", name)
	}
	return nil
}

// PutDraft writes b to drafts/NAME.json and returns its path. An existing
// draft is ErrDraftExists unless replace; either way the draft appears
// whole, through a temporary file, or not at all.
func (s *Store) PutDraft(name string, b []byte, replace bool) (string, error) {
	if err := CheckDraftName(name); err != nil {
		return "", err
	}
	dir := filepath.Join(s.root, "drafts")
	if err := s.storeDir(dir); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name+".json")
	if !replace {
		err := WriteOptions{Perm: 0o644, NoReplace: true}.WriteFile(path, b)
		if errors.Is(err, fs.ErrExist) {
			return path, fmt.Errorf("%s: %w", path, ErrDraftExists)
		}
		return path, err
	}
	if err := WriteFileAtomic(path, b, 0o644); err != nil {
		return path, fmt.Errorf("writing draft %s: %w", path, err)
	}
	return path, nil
}

// storeDir creates the store directory dir if needed and makes sure it is
// a directory, not a symlink that would lead writes out of the store.
func (s *Store) storeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s %s, not a directory: a store is never written through one", dir, DescribeMode(fi.Mode()))
	}
	return nil
}
