package userconfig

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRemoveCache(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cache")
	outside := t.TempDir()
	put := func(name string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := WriteCache(p, []byte("x")); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := []string{put("ab/cdef"), put("p/ab/0123")}
	kept := put("ab/other")
	if err := os.WriteFile(filepath.Join(outside, "victim"), []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A fan-out directory that leads out of the cache, and an entry that
	// is a link to a file outside it.
	if err := os.Symlink(outside, filepath.Join(dir, "zz")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "victim"), filepath.Join(dir, "ab", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "ab", "adir"), 0o700); err != nil {
		t.Fatal(err)
	}
	n, err := RemoveCache(dir, []string{
		filepath.Join("ab", "cdef"),
		filepath.Join("p", "ab", "0123"),
		filepath.Join("ab", "missing"),
		filepath.Join("no", "such"),
		filepath.Join("zz", "victim"),
		filepath.Join("ab", "link"),
		filepath.Join("ab", "adir"),
	})
	if err != nil || n != 3 {
		t.Fatalf("RemoveCache = %d, %v; want 3 (two files and a link), nil", n, err)
	}
	for _, p := range gone {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s: still there (%v)", p, err)
		}
	}
	for _, p := range []string{kept, filepath.Join(outside, "victim"), filepath.Join(dir, "ab", "adir")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v, want it kept", p, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "ab", "link")); !os.IsNotExist(err) {
		t.Errorf("the link itself: %v, want it removed", err)
	}
	for _, bad := range []string{"../x", "/etc/passwd", "ab/../ab/other", ""} {
		if _, err := RemoveCache(dir, []string{bad}); err == nil {
			t.Errorf("RemoveCache(%q): no error", bad)
		}
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("%s: %v", kept, err)
	}
	if n, err := RemoveCache(filepath.Join(dir, "none"), []string{"ab/cdef"}); n != 0 || err != nil {
		t.Errorf("missing cache: %d, %v", n, err)
	}
	if n, err := RemoveCache("", []string{"ab/cdef"}); n != 0 || err != nil {
		t.Errorf("no cache: %d, %v", n, err)
	}
}
