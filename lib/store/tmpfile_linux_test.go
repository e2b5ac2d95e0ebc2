package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUnnamedTemp runs the Linux path directly: an O_TMPFILE file,
// written, then named with linkat through /proc/self/fd; naming a second
// one the same is fs.ErrExist. syncFS flushes the directory's file
// system.
func TestUnnamedTemp(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd here")
	}
	dir := t.TempDir()
	fd, err := syscall.Open(dir, unix.O_TMPFILE|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o444)
	if err == unix.EOPNOTSUPP || err == unix.EISDIR {
		t.Skipf("this file system has no O_TMPFILE: %v", err)
	}
	if err != nil {
		t.Fatalf("O_TMPFILE open: %v", err)
	}
	syscall.Close(fd)
	defer func(old bool) { noUnnamed.Store(old) }(noUnnamed.Load())
	noUnnamed.Store(false)

	put := func(name, text string) error {
		tmp, ok := newUnnamed(dir)
		if !ok {
			t.Fatal("newUnnamed declined where O_TMPFILE works")
		}
		if _, err := tmp.Write([]byte(text)); err != nil {
			t.Fatal(err)
		}
		if err := tmp.Sync(); err != nil {
			t.Fatal(err)
		}
		return tmp.link(name)
	}
	name := filepath.Join(dir, "obj")
	if err := put(name, "unnamed"); err != nil {
		t.Fatalf("link: %v", err)
	}
	if b, err := os.ReadFile(name); err != nil || string(b) != "unnamed" {
		t.Fatalf("linked file = %q, %v", b, err)
	}
	if err := put(name, "again"); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("link over an existing name = %v, want fs.ErrExist", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%s holds %d files, want the one linked", dir, len(ents))
	}
	if err := syncFS(dir); err != nil {
		t.Errorf("syncFS: %v", err)
	}
}
