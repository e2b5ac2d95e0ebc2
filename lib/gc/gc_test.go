package gc

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/fsck"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

func newStore(t *testing.T) *store.Store {
	t.Helper()
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// snapshot commits a pack of session id (none for "") whose steps output
// outs, with parent.
func snapshot(t *testing.T, s *store.Store, session string, parent digest.Digest, outs ...string) digest.Digest {
	t.Helper()
	m := &manifest.Manifest{
		Version: manifest.Version, Created: "2026-03-01T10:00:00Z", Parent: parent,
		Model: manifest.Model{Identifier: "m"}, Steps: []manifest.Step{}, Outputs: []manifest.Output{},
	}
	if session != "" {
		m.Metadata = []byte(`{"session":{"sessionId":"` + session + `"}}`)
	}
	for i, o := range outs {
		d, _, err := s.Put([]byte(o))
		if err != nil {
			t.Fatal(err)
		}
		m.Steps = append(m.Steps, manifest.Step{Index: i, Type: manifest.LLMCall, OutputRef: d})
	}
	d, _, err := manifest.Commit(s, m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func packs(t *testing.T, s *store.Store) []digest.Digest {
	t.Helper()
	ds, err := s.Packs("")
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestRun(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	a1 := snapshot(t, s, "a", digest.Digest{}, "only in a1")
	a2 := snapshot(t, s, "a", digest.Digest{}, "x", "only in a2")
	a3 := snapshot(t, s, "a", digest.Digest{}, "x", "y", "z")
	b1 := snapshot(t, s, "b", digest.Digest{}, "b1")
	b2 := snapshot(t, s, "b", digest.Digest{}, "b1", "b2")
	fork := snapshot(t, s, "b", b1, "forked") // a fork of b1: kept, and b1 with it
	plain := snapshot(t, s, "", digest.Digest{}, "plain")
	pushed := snapshot(t, s, "c", digest.Digest{}, "c1")
	snapshot(t, s, "c", digest.Digest{}, "c1", "c2")

	rep, err := Run(s, Options{DryRun: true, Pushed: func(d digest.Digest) bool { return d == pushed }})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(packs(t, s)); got != 9 {
		t.Fatalf("--dry-run removed packs: %d left", got)
	}
	var dropped []digest.Digest
	for _, d := range rep.Dropped {
		dropped = append(dropped, d.Hash)
		if d.SupersededBy != a3 {
			t.Errorf("%s superseded by %s, want %s", d.Hash, d.SupersededBy, a3)
		}
	}
	if !slices.Equal(dropped, []digest.Digest{a2, a1}) {
		t.Errorf("dropped %v, want a2, a1", dropped)
	}

	rep, err = Run(s, Options{Grace: time.Hour, Pushed: func(d digest.Digest) bool { return d == pushed }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Packs.Removed != 2 || rep.Packs.Kept != 7 || rep.Objects.Removed != 4 {
		t.Errorf("report %+v", rep)
	}
	left := packs(t, s)
	for _, d := range []digest.Digest{a3, b1, b2, fork, plain, pushed} {
		if !slices.Contains(left, d) {
			t.Errorf("pack %s was removed", d)
		}
	}
	for _, d := range []digest.Digest{a1, a2} {
		if ok, _ := s.Has(d); ok || slices.Contains(left, d) {
			t.Errorf("superseded pack %s is still there", d)
		}
	}
	if r, err := fsck.Store(s, fsck.Options{}); err != nil || !r.OK() {
		t.Errorf("store does not verify after gc: %v %+v", err, r)
	}
}

// Objects no pack references go only after the grace period, unless a
// dropped pack referenced them.
func TestGrace(t *testing.T) {
	s := newStore(t)
	snapshot(t, s, "", digest.Digest{}, "kept")
	young, _, _ := s.Put([]byte("young garbage"))
	old, _, _ := s.Put([]byte("old garbage"))
	past := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(s.ObjectPath(old), past, past); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(s, Options{Grace: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Has(young); !ok {
		t.Error("a young unreferenced object was removed")
	}
	if ok, _ := s.Has(old); ok {
		t.Error("an old unreferenced object was kept")
	}
	if rep.Objects.Young != 1 || rep.Objects.Removed != 1 {
		t.Errorf("report %+v", rep.Objects)
	}
}

// A store with an entry ctx-gc cannot read is left alone: that pack might
// reference anything.
func TestUnreadableEntry(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	snapshot(t, s, "a", digest.Digest{}, "one")
	snapshot(t, s, "a", digest.Digest{}, "one", "two")
	garbage, _, _ := s.Put([]byte("garbage"))
	bad := filepath.Join(s.Root(), "packs", digest.Of([]byte("x")).Hex())
	if err := os.WriteFile(bad, []byte("{not json"), 0o444); err != nil {
		t.Fatal(err)
	}
	_, err := Run(s, Options{})
	var unsafe *UnsafeError
	if !errors.As(err, &unsafe) {
		t.Fatalf("err = %v, want an UnsafeError", err)
	}
	if len(packs(t, s)) != 3 {
		t.Error("packs were removed")
	}
	if ok, _ := s.Has(garbage); !ok {
		t.Error("objects were removed")
	}
}

// TestSymlinkedDirs: a store directory gc removes from (tmp/, packs/,
// objects/, a fan-out directory) that is a symlink, as a received or
// copied store can carry, is never removed through: what it leads to is
// left whole.
func TestSymlinkedDirs(t *testing.T) {
	for _, rel := range []string{"tmp", "packs", "objects", "fanout"} {
		t.Run(rel, func(t *testing.T) {
			s := newStore(t)
			snapshot(t, s, "a", digest.Digest{}, "one")
			snapshot(t, s, "a", digest.Digest{}, "one", "two")
			garbage, _, _ := s.Put([]byte("garbage"))
			if err := os.MkdirAll(filepath.Join(s.Root(), "tmp", "leftover", "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(s.Root(), "tmp", "leftover", "sub", "f"), []byte("x"), 0o644)
			if rel == "fanout" {
				rel = "objects/" + garbage.Hex()[:2]
			}
			// The directory moves out of the store; a symlink takes its
			// place.
			outside := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.Rename(s.Path(rel), outside); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, s.Path(rel)); err != nil {
				t.Fatal(err)
			}
			past := time.Now().Add(-2 * time.Hour)
			filepath.WalkDir(outside, func(p string, _ os.DirEntry, _ error) error {
				return os.Chtimes(p, past, past)
			})
			before := tree(t, outside)
			_, err := Run(s, Options{Grace: time.Minute})
			if got := tree(t, outside); !slices.Equal(got, before) {
				t.Errorf("removed through the symlink %s: %v left of %v (err %v)", rel, got, before, err)
			}
			var unsafe *UnsafeError
			if !strings.Contains(rel, "/") && (!errors.As(err, &unsafe) || !strings.Contains(err.Error(), "is a symlink")) {
				t.Errorf("err = %v, want an UnsafeError naming the symlink", err)
			}
		})
	}
}

// tree lists the files and directories under dir.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		out = append(out, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Deciding keeps of each manifest its session and references, not the
// manifest: the manifests of a year of sessions take gigabytes. Twenty
// packs whose step metadata holds 1 MiB each leave far less than their
// 20 MiB in the decision's cache.
func TestDecideKeepsRefsNotManifests(t *testing.T) {
	s := newStore(t)
	for i := range 20 {
		m := &manifest.Manifest{
			Version: manifest.Version, Created: "2026-03-01T10:00:00Z",
			Model: manifest.Model{Identifier: "m"}, Outputs: []manifest.Output{},
			Metadata: []byte(`{"session":{"sessionId":"s` + strconv.Itoa(i) + `"}}`),
		}
		d, _, err := s.Put([]byte("output " + strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		big := `{"result":"` + strings.Repeat(strconv.Itoa(i%10), 1<<20) + `"}`
		m.Steps = []manifest.Step{{Index: 0, Type: manifest.LLMCall, OutputRef: d, Metadata: []byte(big)}}
		if _, _, err := manifest.Commit(s, m); err != nil {
			t.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cache := map[digest.Digest]*packRefs{}
	p, err := decide(s, Options{Now: time.Now(), Grace: DefaultGrace}, cache)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(cache)
	if p.report.Packs.Kept != 20 || len(cache) != 20 {
		t.Fatalf("kept %d packs, %d cached, want 20", p.report.Packs.Kept, len(cache))
	}
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 4<<20 {
		t.Errorf("the decision holds %d MiB after reading 20 MiB of manifests", grown>>20)
	}
}
