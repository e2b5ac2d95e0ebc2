package found

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx-tools/ctx/lib/store"
)

// Rule is what a found file must be.
type Rule struct {
	// What the file is, for messages: "the transcript the hook payload
	// names", "key file", "layout index.json".
	What string
	// Max is the largest size accepted, in bytes.
	Max int64
	// Within, if set, is the directory the file was looked for in: the
	// path, symlinks resolved, must stay inside it (resolved too).
	Within string
	// Unresolved opens the file as named, without resolving symlinks
	// first (three fewer walks of the path, for a reader of many small
	// files): a file that is a symlink is refused, a directory on the
	// way is not checked, and Within must be empty.
	Unresolved bool
}

// Error reports a found file that breaks its Rule. Its exit code is 2
// (an operational error: the file is not what ctx can read).
type Error struct {
	What   string
	Path   string
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("%s %s: %s", e.What, e.Path, e.Reason) }

// ExitCode implements lib/cli's exit-code protocol.
func (e *Error) ExitCode() int { return 2 }

// Open opens name for reading under rule r. The returned file is a
// regular file whose size (also returned) is at most r.Max; a caller
// reading it whole should still read at most r.Max+1 bytes, as ReadFile
// does, since a file can grow.
func Open(name string, r Rule) (*os.File, int64, error) {
	resolved := name
	if !r.Unresolved {
		var err error
		if resolved, err = filepath.EvalSymlinks(name); err != nil {
			return nil, 0, fmt.Errorf("%s %s: %w", r.What, name, bare(err))
		}
	} else if r.Within != "" {
		return nil, 0, fmt.Errorf("%s %s: found.Rule: Within and Unresolved together", r.What, name)
	}
	if r.Within != "" {
		if err := within(name, resolved, r); err != nil {
			return nil, 0, err
		}
	}
	if r.Unresolved && openFlags == 0 {
		// No O_NOFOLLOW here: look first.
		if fi, err := os.Lstat(name); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, 0, &Error{What: r.What, Path: name, Reason: "is a symlink: refused"}
		}
	}
	// Without following a symlink that replaced the file since, and
	// without blocking on a named pipe: its type is checked first.
	f, err := os.OpenFile(resolved, os.O_RDONLY|openFlags, 0)
	if err != nil {
		if isLoop(err) {
			return nil, 0, &Error{What: r.What, Path: name, Reason: "became a symlink while being opened"}
		}
		return nil, 0, fmt.Errorf("%s %s: %w", r.What, name, bare(err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("%s %s: %w", r.What, name, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		via := ""
		if resolved != name {
			via = " (" + resolved + ")"
		}
		return nil, 0, &Error{What: r.What, Path: name, Reason: store.DescribeMode(fi.Mode()) + via + ", not a regular file: refused"}
	}
	if fi.Size() > r.Max {
		f.Close()
		return nil, 0, &Error{What: r.What, Path: name, Reason: fmt.Sprintf("is %d bytes, more than the %d accepted", fi.Size(), r.Max)}
	}
	return f, fi.Size(), nil
}

// within checks that resolved, the path name leads to, is inside
// r.Within (resolved too).
func within(name, resolved string, r Rule) error {
	root, err := filepath.EvalSymlinks(r.Within)
	if err != nil {
		return fmt.Errorf("%s %s: %w", r.What, name, err)
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(resolved)); err == nil {
		resolved = filepath.Join(dir, filepath.Base(resolved))
	}
	abs, err1 := filepath.Abs(resolved)
	rootAbs, err2 := filepath.Abs(root)
	rel, err3 := filepath.Rel(rootAbs, abs)
	if err := errors.Join(err1, err2, err3); err != nil {
		return fmt.Errorf("%s %s: %w", r.What, name, err)
	}
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return &Error{What: r.What, Path: name, Reason: fmt.Sprintf("leads outside %s (symlink to %s)", r.Within, resolved)}
	}
	return nil
}

// ReadFile returns the content of name under rule r.
func ReadFile(name string, r Rule) ([]byte, error) {
	f, size, err := Open(name, r)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One byte more than allowed, to see a file that grew. Room for
	// bytes.MinRead more than the size: ReadFrom grows (copies) a buffer
	// with less room left than that before each read, the last included.
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, r.Max+1)); err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.What, name, err)
	}
	if int64(buf.Len()) > r.Max {
		return nil, &Error{What: r.What, Path: name, Reason: fmt.Sprintf("grew beyond the %d bytes accepted while being read", r.Max)}
	}
	return buf.Bytes(), nil
}

// bare drops the operation and path of a *fs.PathError, which the
// message names already.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Append opens name for appending under rule r (Max bounds the size it
// may already have), creating it (mode perm) when it does not exist. A
// name that is a symlink, a named pipe, a device or anything else but a
// regular file is refused before a byte is written, and without blocking.
func Append(name string, r Rule, perm os.FileMode) (*os.File, error) {
	if r.Within != "" {
		if err := within(name, name, r); err != nil {
			return nil, err
		}
	}
	// Its type first, for the message; the open flags (no symlink
	// followed, no blocking) guard against a change in between.
	if fi, err := os.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return nil, &Error{What: r.What, Path: name, Reason: store.DescribeMode(fi.Mode()) + ", not a regular file: refused"}
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE|openFlags, perm)
	if err != nil {
		if isLoop(err) {
			return nil, &Error{What: r.What, Path: name, Reason: "is a symlink: refused"}
		}
		return nil, fmt.Errorf("%s %s: %w", r.What, name, bare(err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s %s: %w", r.What, name, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &Error{What: r.What, Path: name, Reason: store.DescribeMode(fi.Mode()) + ", not a regular file: refused"}
	}
	if fi.Size() > r.Max {
		f.Close()
		return nil, &Error{What: r.What, Path: name, Reason: fmt.Sprintf("is %d bytes, more than the %d accepted", fi.Size(), r.Max)}
	}
	return f, nil
}
