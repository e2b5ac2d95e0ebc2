//go:build unix

package store

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
)

// within fails the test if f does not return within a few seconds: a
// hostile file must not hang a reader.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a hang, not a slow machine
		t.Fatalf("%s hangs", what)
	}
}

// replace puts a FIFO, or a symlink to target, where the store file rel is.
func replace(t *testing.T, s *Store, rel, target string) {
	t.Helper()
	p := s.Path(filepath.FromSlash(rel))
	os.Chmod(p, 0o644)
	os.Remove(p)
	var err error
	if target == "fifo" {
		err = syscall.Mkfifo(p, 0o644)
	} else {
		err = os.Symlink(target, p)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestHostileFiles puts FIFOs and symlinks (to /dev/zero, to a file
// outside the store) where the store keeps objects, pack entries, refs and
// its config: every read fails at once, saying what is wrong, and nothing
// outside the store is echoed.
func TestHostileFiles(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("sha256:0000 TOP SECRET\n"), 0o644)
	for _, target := range []string{"fifo", "/dev/zero", secret} {
		t.Run(filepath.Base(target), func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			d, _, err := s.Put([]byte("object"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.PutPackEntry(d, []byte(`{}`)); err != nil {
				t.Fatal(err)
			}
			set := func(*digest.Digest) (digest.Digest, error) { return d, nil }
			if err := s.UpdateRef(Latest, set); err != nil {
				t.Fatal(err)
			}
			if err := s.UpdateRef("v1", set); err != nil {
				t.Fatal(err)
			}
			obj := "objects/" + d.Hex()[:2] + "/" + d.Hex()[2:]
			for _, rel := range []string{obj, "packs/" + d.Hex(), "refs/latest", "refs/tags/v1", "config.json"} {
				replace(t, s, rel, target)
			}
			check := func(what string, err error) {
				t.Helper()
				if err == nil {
					t.Errorf("%s of a %s succeeded", what, target)
				} else if strings.Contains(err.Error(), "SECRET") {
					t.Errorf("%s echoes what the link points at: %v", what, err)
				}
			}
			within(t, "Get", func() { _, err := s.Get(d); check("Get", err) })
			within(t, "GetUpTo", func() { _, _, err := s.GetUpTo(d, 1<<20); check("GetUpTo", err) })
			within(t, "ObjectDir", func() {
				o, err := s.OpenObjectDir()
				if err != nil {
					t.Fatal(err)
				}
				defer o.Close()
				_, _, err = o.GetUpTo(d, 1<<20)
				check("ObjectDir.GetUpTo", err)
			})
			within(t, "Open", func() {
				r, err := s.Open(d)
				if err == nil {
					_, err = io.Copy(io.Discard, io.LimitReader(r, 1<<20))
					r.Close()
				}
				check("Open", err)
			})
			within(t, "Put", func() { _, _, err := s.Put([]byte("object")); check("Put", err) })
			within(t, "PackEntry", func() { _, err := s.PackEntry(d); check("PackEntry", err) })
			within(t, "Ref", func() { _, err := s.Ref(Latest); check("Ref latest", err) })
			within(t, "Ref", func() { _, err := s.Ref("v1"); check("Ref v1", err) })
			within(t, "OpenAt", func() { _, err := OpenAt(s.Root()); check("OpenAt", err) })
		})
	}
}

// TestSymlinkedDirs refuses to write through a symlinked drafts/ or
// refs/tags/: the store must not be walked out of.
func TestSymlinkedDirs(t *testing.T) {
	s := newStore(t)
	outside := t.TempDir()
	os.RemoveAll(s.Path("refs", "tags"))
	os.Symlink(outside, s.Path("refs", "tags"))
	os.Symlink(outside, s.Path("drafts"))
	d := digest.Of([]byte("x"))
	if err := s.UpdateRef("v1", func(*digest.Digest) (digest.Digest, error) { return d, nil }); err == nil {
		t.Error("UpdateRef wrote through a symlinked refs/tags")
	}
	if _, err := s.PutDraft("d", []byte("{}"), false); err == nil {
		t.Error("PutDraft wrote through a symlinked drafts")
	}
	if _, err := s.PutDraft("d", []byte("{}"), true); err == nil {
		t.Error("PutDraft --force wrote through a symlinked drafts")
	}
	if ents, _ := os.ReadDir(outside); len(ents) > 0 {
		t.Errorf("written outside the store: %v", ents)
	}
	// Nor stage in, or clean up, a symlinked tmp/: a staging directory
	// left there looks stale.
	os.Symlink(outside, s.Path("tmp"))
	os.Mkdir(filepath.Join(outside, "pull-stale"), 0o755)
	past := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(outside, "pull-stale"), past, past)
	if _, _, err := s.Staging("pull-"); err == nil {
		t.Error("Staging made a directory through a symlinked tmp")
	}
	if _, err := os.Stat(filepath.Join(outside, "pull-stale")); err != nil {
		t.Errorf("Staging cleaned up through a symlinked tmp: %v", err)
	}
	os.Remove(filepath.Join(outside, "pull-stale"))
	// Nor read through one.
	os.WriteFile(filepath.Join(outside, "v2"), []byte("sha256:TOP SECRET\n"), 0o644)
	if _, err := s.Ref("v2"); err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("Ref through a symlinked refs/tags = %v", err)
	}
}
