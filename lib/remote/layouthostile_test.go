//go:build unix

package remote

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// TestHostileLayout: a layout directory whose files are symlinks, pipes
// or oversized is refused, for push and pull, without following a
// symlink out of it or reading a pipe: at once for its own files and
// directories, when a push or pull comes to it for a blob (blobs are not
// listed on opening, which would make a push cost what the layout holds).
func TestHostileLayout(t *testing.T) {
	t.Parallel()
	a := newStore(t)
	m := makePack(t, a, "layout", sizes(5, 20), digest.Digest{})
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim.json")

	cases := []struct {
		name  string
		make  func(t *testing.T, dir string)
		want  string
		atUse bool // refused when a push or pull comes to it
	}{
		{"index.json symlink", func(t *testing.T, dir string) {
			os.WriteFile(victim, []byte("keep"), 0o644)
			os.Remove(filepath.Join(dir, "index.json"))
			os.Symlink(victim, filepath.Join(dir, "index.json"))
		}, "index.json: is a symlink", false},
		{"blobs/sha256 symlink", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, "blobs", "sha256"))
			os.Symlink(outside, filepath.Join(dir, "blobs", "sha256"))
		}, "blobs/sha256: is a symlink", false},
		{"index.json pipe", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "index.json"))
			syscall.Mkfifo(filepath.Join(dir, "index.json"), 0o644)
		}, "index.json: is a named pipe", false},
		{"oci-layout pipe", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "oci-layout"))
			syscall.Mkfifo(filepath.Join(dir, "oci-layout"), 0o644)
		}, "oci-layout: is a named pipe", false},
		{"blob pipe", func(t *testing.T, dir string) {
			ents, _ := os.ReadDir(filepath.Join(dir, "blobs", "sha256"))
			p := filepath.Join(dir, "blobs", "sha256", ents[0].Name())
			os.Remove(p)
			syscall.Mkfifo(p, 0o644)
		}, "is a named pipe", true},
		{"blob symlink", func(t *testing.T, dir string) {
			ents, _ := os.ReadDir(filepath.Join(dir, "blobs", "sha256"))
			p := filepath.Join(dir, "blobs", "sha256", ents[0].Name())
			os.Remove(p)
			os.Symlink("/dev/zero", p)
		}, "symlink", true}, // "is a symlink", "leads outside … (symlink to /dev/zero)"
		{"huge index.json", func(t *testing.T, dir string) {
			if err := os.Truncate(filepath.Join(dir, "index.json"), MaxLayoutIndex+1); err != nil {
				t.Fatal(err)
			}
		}, "index.json: is 16777217 bytes, more than the 16777216 accepted", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "layout")
			c, err := Open(mustParse(t, "oci-layout:"+dir), Options{}, true)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Push(ctx, a, m.Hash, PushOptions{Tags: []string{"v1"}}); err != nil {
				t.Fatal(err)
			}
			tc.make(t, dir)
			refused := func(what string, err error) {
				t.Helper()
				var fe *found.Error
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: %v, want a found.Error saying %q", what, err, tc.want)
				}
			}
			for _, create := range []bool{true, false} {
				c, err := Open(mustParse(t, "oci-layout:"+dir), Options{}, create)
				if !tc.atUse {
					refused(fmt.Sprintf("open (create %v)", create), err)
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				_, err = c.Pull(ctx, newStore(t), m.Hash.Hex(), PullOptions{})
				refused("pull", err)
			}
			if tc.atUse {
				// Without index.json the pack is pushed again: every
				// blob is looked at.
				os.Remove(filepath.Join(dir, "index.json"))
				c, err := Open(mustParse(t, "oci-layout:"+dir), Options{}, true)
				if err != nil {
					t.Fatal(err)
				}
				_, err = c.Push(ctx, a, m.Hash, PushOptions{})
				refused("push", err)
			}
			if b, err := os.ReadFile(victim); err == nil && string(b) != "keep" {
				t.Errorf("the file a symlink points at was rewritten: %q", b)
			}
			if ents, _ := os.ReadDir(outside); len(ents) > 1 {
				t.Errorf("written outside the layout: %v", ents)
			}
		})
	}
}

// TestCacheEntryNotRegular: a layout cache entry that is a pipe or a
// symlink out of the cache is refused at once, not read.
func TestCacheEntryNotRegular(t *testing.T) {
	a := newStore(t)
	m := makePack(t, a, "cache", sizes(3, 20), digest.Digest{})
	for _, kind := range []string{"pipe", "symlink"} {
		t.Run(kind, func(t *testing.T) {
			cache := t.TempDir()
			entry := filepath.Join(cache, m.Hash.Hex()+".json")
			if kind == "pipe" {
				syscall.Mkfifo(entry, 0o644)
			} else {
				os.Symlink("/dev/zero", entry)
			}
			c, err := Open(mustParse(t, "oci-layout:"+filepath.Join(t.TempDir(), "l")), Options{Cache: cache}, true)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Push(ctx, a, m.Hash, PushOptions{})
			if err == nil || !strings.Contains(err.Error(), "layout cache entry") || !strings.Contains(err.Error(), "CTX_OCI_CACHE=off") {
				t.Errorf("error %v", err)
			}
		})
	}
}

// TestConcurrentStagedPulls: pulls that stage on disk share the store's
// tmp/ with each other and with packs being written; one finishing never
// takes it from another still at work.
func TestConcurrentStagedPulls(t *testing.T) {
	defer func(old int64) { maxHeld = old }(maxHeld)
	maxHeld = 0
	a := newStore(t)
	layout := filepath.Join(t.TempDir(), "l")
	c, err := Open(mustParse(t, "oci-layout:"+layout), Options{}, true)
	if err != nil {
		t.Fatal(err)
	}
	var packs []digest.Digest
	for i := range 4 {
		m := makePack(t, a, fmt.Sprintf("conc%d", i), sizes(20, 50), digest.Digest{})
		if _, err := c.Push(ctx, a, m.Hash, PushOptions{}); err != nil {
			t.Fatal(err)
		}
		packs = append(packs, m.Hash)
	}
	for range 10 {
		b := newStore(t)
		var wg sync.WaitGroup
		for _, d := range packs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Pull(ctx, b, d.Hex(), PullOptions{}); err != nil {
					t.Error(err)
				}
			}()
		}
		// A pack being written meanwhile: its ref goes through tmp/.
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 5 {
				obj, _, err := b.Put([]byte(fmt.Sprint("packed ", j)))
				if err == nil {
					m := &manifest.Manifest{Version: manifest.Version, Created: "2026-02-10T09:00:00Z", Model: manifest.Model{Identifier: "m"},
						Inputs: []manifest.File{{Name: "a", ContentRef: obj, Size: int64(len(fmt.Sprint("packed ", j)))}}}
					var pack digest.Digest
					if pack, _, err = manifest.Commit(b, m); err == nil {
						err = b.UpdateRef("latest", func(*digest.Digest) (digest.Digest, error) { return pack, nil })
					}
				}
				if err != nil {
					t.Error(err)
				}
			}
		}()
		wg.Wait()
		if ents, _ := os.ReadDir(b.Path("tmp")); len(ents) > 0 {
			t.Errorf("tmp/ holds %d entries after the pulls", len(ents))
		}
	}
}

// TestReferrerOverPipe: a pipe or symlink where a referrer's file is to
// be written is neither read nor followed.
func TestReferrerOverPipe(t *testing.T) {
	t.Parallel()
	a := newStore(t)
	m := makePack(t, a, "overpipe", sizes(2, 20), digest.Digest{})
	dir := t.TempDir()
	report := filepath.Join(dir, "r.html")
	os.WriteFile(report, []byte("<p>r</p>"), 0o644)
	layout := filepath.Join(t.TempDir(), "l")
	c, err := Open(mustParse(t, "oci-layout:"+layout), Options{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Push(ctx, a, m.Hash, PushOptions{Attach: []string{report}}); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	for _, kind := range []string{"pipe", "symlink"} {
		out := t.TempDir()
		if kind == "pipe" {
			syscall.Mkfifo(filepath.Join(out, "r.html"), 0o644)
		} else {
			os.Symlink(victim, filepath.Join(out, "r.html"))
		}
		_, err := c.Pull(ctx, newStore(t), m.Hash.Hex(), PullOptions{Referrers: out})
		if err == nil || !strings.Contains(err.Error(), "r.html exists and is a") {
			t.Errorf("%s: %v", kind, err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("victim now %q", b)
	}
}
