package remote

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/store"
)

// Bounds on the files of an OCI image layout directory read whole.
const (
	// MaxLayoutIndex bounds index.json: at about 270 bytes an entry, room
	// for some 60,000 tags and referrers. The OCI library indexes every
	// entry on opening: 16 MiB took 2.1 s and 350 MB allocated here (64
	// MiB 22 s and 1.6 GB; a 333 MB one minutes and gigabytes).
	MaxLayoutIndex = 16 << 20
	maxLayoutFile  = 4 << 10 // oci-layout
)

// checkLayout refuses a layout directory whose own files are not what a
// layout holds, before any of them is read or written: a symlink among
// index.json, oci-layout, blobs/ and its directories (a write would
// follow it out of the directory), a named pipe or device (a read would
// hang or never end), an index.json larger than MaxLayoutIndex. Blobs
// are checked when a push or pull comes to them (lstatBlob,
// fetchLayoutBlob), not listed here: a push would cost as much as the
// layout holds.
func checkLayout(dir string) error {
	bad := func(name, why string) error {
		return &found.Error{What: "layout file", Path: filepath.Join(dir, name), Reason: why}
	}
	for _, f := range []struct {
		name string
		max  int64
	}{{ocispec.ImageLayoutFile, maxLayoutFile}, {ocispec.ImageIndexFile, MaxLayoutIndex}} {
		fi, err := os.Lstat(filepath.Join(dir, f.name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return bad(f.name, store.DescribeMode(fi.Mode())+", not a regular file: refused")
		}
		if fi.Size() > f.max {
			return bad(f.name, fmt.Sprintf("is %d bytes, more than the %d accepted", fi.Size(), f.max))
		}
	}
	isDir := func(name string) (bool, error) {
		fi, err := os.Lstat(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if !fi.IsDir() {
			return false, bad(name, store.DescribeMode(fi.Mode())+", not a directory: refused")
		}
		return true, nil
	}
	if _, err := isDir("ingest"); err != nil {
		return err
	}
	ok, err := isDir("blobs")
	if err != nil || !ok {
		return err
	}
	algs, err := os.ReadDir(filepath.Join(dir, "blobs"))
	if err != nil {
		return err
	}
	for _, a := range algs {
		if _, err := isDir(filepath.Join("blobs", a.Name())); err != nil {
			return err
		}
	}
	return nil
}

// fetchLayoutBlob opens a blob of the layout at dir by lib/found's rule:
// a regular file inside the layout, of the size desc declares at most.
func fetchLayoutBlob(dir string, desc ocispec.Descriptor) (io.ReadCloser, error) {
	if err := desc.Digest.Validate(); err != nil {
		return nil, fmt.Errorf("%w: blob %q: %v", ErrBadLayer, desc.Digest, err)
	}
	p := filepath.Join(dir, "blobs", desc.Digest.Algorithm().String(), desc.Digest.Encoded())
	f, _, err := found.Open(p, found.Rule{What: "layout blob", Max: desc.Size, Within: dir})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("blob %s: %w", desc.Digest, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}
