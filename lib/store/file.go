package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Bounds on what the store reads into memory. A received store is
// untrusted: its files are read only as regular files, never through a
// symlink, and never beyond these sizes.
const (
	MaxConfigSize = 1 << 20 // config.json
	MaxRefSize    = 4 << 10 // refs/latest, refs/tags/NAME
	MaxEntrySize  = 1 << 20 // packs/<hex>
)

// MaxObjectInMemory bounds an object read whole into memory (Get); larger
// objects are read as streams (Open), which are bounded by the object's
// size.
var MaxObjectInMemory int64 = 1 << 30

// ErrNotRegular reports a store file that is a symlink, pipe, device,
// socket or directory: a store never holds one, so it is not read.
var ErrNotRegular = errors.New("not a regular file")

// OpenFile opens the store file name for reading, refusing anything but a
// regular file without following a final symlink and without blocking (a
// named pipe would). The error for a symlink, pipe or other non-regular
// file wraps ErrNotRegular and names only the type, never what a link
// points at.
func OpenFile(name string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|openFlags, 0)
	if err != nil {
		if isLoop(err) {
			return nil, nil, fmt.Errorf("%s is a symlink: %w", name, ErrNotRegular)
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s %s: %w", name, DescribeMode(fi.Mode()), ErrNotRegular)
	}
	return f, fi, nil
}

// ReadFile returns the content of the regular store file name, refusing
// one larger than max bytes.
func ReadFile(name string, max int64) ([]byte, error) {
	f, fi, err := OpenFile(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d it may hold", name, fi.Size(), max)
	}
	// Read one byte more than allowed, to see a file that grew.
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is more than the %d bytes it may hold", name, max)
	}
	return b, nil
}

// DescribeMode says what kind of file, other than a regular one, m is:
// "is a symlink", "is a named pipe", … for messages about store files.
func DescribeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "is a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "is a named pipe"
	case m&fs.ModeSocket != 0:
		return "is a socket"
	case m&fs.ModeDevice != 0:
		return "is a device"
	case m.IsDir():
		return "is a directory"
	}
	return "is not a regular file"
}

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }

// readRegularFile is readRegular through OpenFile.
func readRegularFile(name string, max int64) ([]byte, int64, error) {
	f, fi, err := OpenFile(name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fi.Size(), nil
	}
	b := make([]byte, 0, fi.Size())
	b, err = readAll(io.LimitReader(f, fi.Size()), b)
	return b, fi.Size(), err
}

// AppendFile appends b to the store file name, creating it (mode 0644)
// if needed, in one write, never through a final symlink; a file that is
// not a regular one is refused as OpenFile refuses it.
func AppendFile(name string, b []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE|openFlags, 0o644)
	if err != nil {
		if isLoop(err) {
			return fmt.Errorf("%s is a symlink: %w", name, ErrNotRegular)
		}
		return err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return err
		}
		return fmt.Errorf("%s %s: %w", name, DescribeMode(fi.Mode()), ErrNotRegular)
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
