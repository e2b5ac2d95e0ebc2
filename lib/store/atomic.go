package store

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// WriteFileAtomic writes data to name whole or not at all, replacing what
// is there, durably: a temporary file beside name (.tmp-NAME-…) is
// written, given mode perm exactly (the umask does not apply), flushed
// and closed, renamed over name, and name's directory flushed. A crash or
// a failure leaves the old file or the new one under name, never a part
// of either, and at most a temporary file beside it. Every file ctx
// writes whole, in the store or out of it, is written this way (or with
// WriteOptions), so that the sequence exists once.
func WriteFileAtomic(name string, data []byte, perm fs.FileMode) error {
	return WriteOptions{Perm: perm}.WriteFile(name, data)
}

// WriteOptions say how WriteFile writes a file whole or not at all. The
// zero value is WriteFileAtomic's sequence with mode 0.
type WriteOptions struct {
	// Perm is the file's mode, set exactly.
	Perm fs.FileMode
	// TmpDir, if set, is where the temporary file is made (created if
	// missing), on name's file system: the store's tmp/, so that a crash
	// leaves garbage only where it is known to be safe to delete. By
	// default the temporary file is a hidden one beside name.
	TmpDir string
	// TmpPrefix, if set, starts the temporary file's name, which random
	// digits end: "ref-" in tmp/ for a ref. By default it is .tmp-NAME-
	// (NAME- in TmpDir).
	TmpPrefix string
	// NoReplace keeps an existing name: the new file is linked, which
	// never replaces, and an existing name is fs.ErrExist.
	NoReplace bool
	// NoSync flushes nothing: for a cache, which a crash may leave empty
	// or lose (only work to do again), never torn between two writers.
	NoSync bool
	// Root, if set, is the directory name (and TmpDir) are relative to,
	// and which no path may leave, even through a symlink (os.Root).
	Root *os.Root
}

// dirOps is what the write needs of a directory tree: the host's (paths
// as given) or an os.Root's (paths inside it).
type dirOps interface {
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
	Open(name string) (*os.File, error)
	Lstat(name string) (fs.FileInfo, error)
	Link(oldname, newname string) error
	Rename(oldname, newname string) error
	Remove(name string) error
	MkdirAll(name string, perm fs.FileMode) error
}

type hostOps struct{}

func (hostOps) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
func (hostOps) Open(name string) (*os.File, error)           { return os.Open(name) }
func (hostOps) Lstat(name string) (fs.FileInfo, error)       { return os.Lstat(name) }
func (hostOps) Link(oldname, newname string) error           { return os.Link(oldname, newname) }
func (hostOps) Rename(oldname, newname string) error         { return os.Rename(oldname, newname) }
func (hostOps) Remove(name string) error                     { return os.Remove(name) }
func (hostOps) MkdirAll(name string, perm fs.FileMode) error { return os.MkdirAll(name, perm) }

// WriteFile writes the parts, one after the other, to name as o says. Its
// errors name neither the temporary file nor an operation on it: callers
// say which file they were writing.
func (o WriteOptions) WriteFile(name string, parts ...[]byte) error {
	var ops dirOps = hostOps{}
	if o.Root != nil {
		ops = o.Root
	}
	tmp, err := o.writeTemp(ops, name, parts)
	if err != nil {
		return err
	}
	crashPoint("atomic-written")
	if o.NoReplace {
		err = linkNewIn(ops, tmp, name)
	} else {
		err = ops.Rename(tmp, name)
	}
	if o.NoReplace || err != nil {
		// Before the directory is synced, so that its one write drops
		// the temporary name as well.
		ops.Remove(tmp)
	}
	if err != nil {
		return bare(err)
	}
	crashPoint("atomic-named")
	if o.NoSync {
		return nil
	}
	return syncDirIn(ops, filepath.Dir(name))
}

// writeTemp writes the parts to a new temporary file for name, flushed
// unless o.NoSync, and returns its name.
func (o WriteOptions) writeTemp(ops dirOps, name string, parts [][]byte) (string, error) {
	dir, prefix := filepath.Dir(name), ".tmp-"+filepath.Base(name)+"-"
	if o.TmpDir != "" {
		dir, prefix = o.TmpDir, filepath.Base(name)+"-"
	}
	if o.TmpPrefix != "" {
		prefix = o.TmpPrefix
	}
	f, tmp, err := createTemp(ops, dir, prefix)
	if errors.Is(err, fs.ErrNotExist) && o.TmpDir != "" {
		if err := ops.MkdirAll(dir, 0o755); err != nil {
			return "", bare(err)
		}
		f, tmp, err = createTemp(ops, dir, prefix)
	}
	if err != nil {
		return "", bare(err)
	}
	for _, b := range parts {
		if err == nil {
			_, err = f.Write(b)
		}
	}
	if err == nil {
		err = f.Chmod(o.Perm)
	}
	if err == nil && !o.NoSync {
		err = f.Sync()
	}
	// Closed before it is named: the file is complete once visible.
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		ops.Remove(tmp)
		return "", bare(err)
	}
	return tmp, nil
}

// createTemp creates a new file in dir named prefix and random digits,
// as os.CreateTemp does, through ops.
func createTemp(ops dirOps, dir, prefix string) (*os.File, string, error) {
	for range 10000 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := ops.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("creating a temporary file in %s: %w", dir, fs.ErrExist)
}

// linkNewIn is linkNew through ops.
func linkNewIn(ops dirOps, oldname, newname string) error {
	err := ops.Link(oldname, newname)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	if _, serr := ops.Lstat(newname); serr == nil {
		return fs.ErrExist
	}
	return ops.Rename(oldname, newname)
}

// syncDirIn is syncDir through ops. A directory this user may write in
// but not read cannot be opened to be synced; its entries are then left
// to the file system.
func syncDirIn(ops dirOps, dir string) error {
	f, err := ops.Open(dir)
	if errors.Is(err, fs.ErrPermission) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("syncing %s: %w", dir, bare(err))
	}
	return syncOpenDir(f, dir)
}

// bare drops the operation and the path of a *fs.PathError or an
// *os.LinkError, which name the temporary file rather than the one the
// caller writes.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
