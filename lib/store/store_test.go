package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
)

func newStore(t testing.TB) *Store {
	t.Helper()
	s, created, err := Init(filepath.Join(t.TempDir(), DirName))
	if err != nil || !created {
		t.Fatalf("Init = %v, %v", created, err)
	}
	return s
}

func TestInit(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), DirName)
	if _, created, err := Init(dir); err != nil || !created {
		t.Fatalf("first Init = %v, %v", created, err)
	}
	for _, sub := range []string{"objects", "packs", "refs", "config.json"} {
		if _, err := os.Stat(filepath.Join(dir, sub)); err != nil {
			t.Errorf("missing %s: %v", sub, err)
		}
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, "config.json"))
	if _, created, err := Init(dir); err != nil || created {
		t.Fatalf("second Init = %v, %v", created, err)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "config.json")); !bytes.Equal(cfg, again) {
		t.Fatal("second Init changed config.json")
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, _, err := Init(filepath.Join(root, DirName)); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(root, "a", "b")
	os.MkdirAll(deep, 0o755)
	s, err := Find(deep)
	if err != nil || s.Root() != filepath.Join(root, DirName) {
		t.Fatalf("Find = %v, %v", s, err)
	}
	if _, err := Find(t.TempDir()); !errors.Is(err, ErrNoStore) {
		t.Fatalf("Find without a store = %v, want ErrNoStore", err)
	}
	if s, err := OpenAt(root); err != nil || s.Root() != filepath.Join(root, DirName) {
		t.Fatalf("OpenAt(project dir) = %v, %v", s, err)
	}
}

func TestPutGet(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	content := []byte("hello\n")
	d, created, err := s.Put(content)
	if err != nil || !created || d != digest.Of(content) {
		t.Fatalf("Put = %s, %v, %v", d, created, err)
	}
	h := d.Hex()
	path := filepath.Join(s.Root(), "objects", h[:2], h[2:])
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o444 {
		t.Fatalf("object file %s: %v, mode %v", path, err, fi.Mode())
	}
	if _, created, err := s.Put(content); err != nil || created {
		t.Fatalf("second Put = %v, %v (want dedup)", created, err)
	}
	got, err := s.Get(d)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("Get = %q, %v", got, err)
	}
	if _, err := s.Get(digest.Of([]byte("absent"))); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get absent = %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(s.Root(), "tmp")); len(ents) != 0 {
		t.Fatalf("tmp/ not empty after Put: %v", ents)
	}
}

func TestPutReader(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	data := bytes.Repeat([]byte("0123456789abcdef"), 300_000)
	d, n, created, err := s.PutReader(bytes.NewReader(data))
	if err != nil || !created || n != int64(len(data)) || d != digest.Of(data) {
		t.Fatalf("PutReader = %s, %d, %v, %v", d, n, created, err)
	}
	if _, _, created, err := s.PutReader(bytes.NewReader(data)); err != nil || created {
		t.Fatalf("second PutReader = %v, %v", created, err)
	}
	r, err := s.Open(d)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data) || r.Size() != int64(len(data)) {
		t.Fatalf("Open/read: %v", err)
	}
}

func TestCorruptAndImmutable(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	d, _, _ := s.Put([]byte("original"))
	path := s.ObjectPath(d)
	os.Chmod(path, 0o644)
	if err := os.WriteFile(path, []byte("tampered"), 0o444); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(d); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Get tampered = %v, want ErrCorrupt", err)
	}
	r, _ := s.Open(d)
	if _, err := io.ReadAll(r); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("reading tampered = %v, want ErrCorrupt", err)
	}
	r.Close()
	// Same size, other bytes: reusing the object would make a new pack
	// reference the tampered bytes, so Put refuses.
	if _, _, err := s.Put([]byte("original")); !errors.Is(err, ErrImmutable) {
		t.Fatalf("Put over same-size tamper = %v, want ErrImmutable", err)
	}
	if _, _, _, err := s.PutReader(strings.NewReader("original")); !errors.Is(err, ErrImmutable) {
		t.Fatalf("PutReader over same-size tamper = %v, want ErrImmutable", err)
	}
	// So does a Store that has not met its fan-out directory (another
	// process's), which looks for the object only once it finds the
	// directory made.
	other, err := Open(s.Root())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := other.Put([]byte("original")); !errors.Is(err, ErrImmutable) {
		t.Fatalf("Put over same-size tamper, by another Store = %v, want ErrImmutable", err)
	}
	os.WriteFile(path, []byte("other bytes, other size"), 0o444)
	_, _, err = s.Put([]byte("original"))
	if !errors.Is(err, ErrImmutable) || !strings.Contains(err.Error(), "immutable") {
		t.Fatalf("Put over other bytes = %v, want ErrImmutable", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "other bytes, other size" {
		t.Fatal("Put replaced an existing object")
	}
}

func TestPackEntry(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	d := digest.Of([]byte("manifest"))
	if _, err := s.PackEntry(d); !errors.Is(err, ErrNotFound) {
		t.Fatalf("PackEntry before = %v", err)
	}
	if created, err := s.PutPackEntry(d, []byte("{}\n")); err != nil || !created {
		t.Fatalf("PutPackEntry = %v, %v", created, err)
	}
	if created, err := s.PutPackEntry(d, []byte("{}\n")); err != nil || created {
		t.Fatalf("PutPackEntry same = %v, %v", created, err)
	}
	if _, err := s.PutPackEntry(d, []byte("{\"x\":1}\n")); !errors.Is(err, ErrImmutable) {
		t.Fatalf("PutPackEntry other = %v, want ErrImmutable", err)
	}
	if ok, _ := s.HasPack(d); !ok {
		t.Fatal("HasPack false")
	}
	os.WriteFile(filepath.Join(s.Root(), "packs", "junk"), nil, 0o644)
	got, err := s.Packs(d.Hex()[:4])
	if err != nil || len(got) != 1 || got[0] != d {
		t.Fatalf("Packs = %v, %v", got, err)
	}
}

func TestObjectsPrefix(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	var all []digest.Digest
	for i := range 50 {
		d, _, _ := s.Put([]byte(fmt.Sprint(i)))
		all = append(all, d)
	}
	got, err := s.Objects("")
	if err != nil || len(got) != 50 {
		t.Fatalf("Objects(\"\") = %d, %v", len(got), err)
	}
	p := all[0].Hex()[:5]
	got, _ = s.Objects(strings.ToUpper(p))
	if len(got) != 1 || got[0] != all[0] {
		t.Fatalf("Objects(%s) = %v", p, got)
	}
	got, _ = s.Objects(all[0].Hex()[:1])
	for _, d := range got {
		if d.Hex()[0] != all[0].Hex()[0] {
			t.Fatalf("Objects(1 char) returned %s", d)
		}
	}
}

// TestConcurrentPut: Stores of one new store, as separate processes, put
// the same objects at once, each in a fan-out directory one of them makes
// (madeFanOut): each object is stored once, reported created once.
func TestConcurrentPut(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	var created [40]atomic.Int32
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			other, err := Open(s.Root()) // separate Store values, as separate processes
			if err != nil {
				errs <- err
				return
			}
			for i := range 40 {
				_, c, err := other.Put([]byte(fmt.Sprintf("shared %d", i)))
				if err != nil {
					errs <- err
				}
				if c {
					created[i].Add(1)
				}
				if _, _, err := other.Put([]byte(fmt.Sprintf("own %d %d", g, i))); err != nil {
					errs <- err
				}
			}
			errs <- other.Sync()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range created {
		if n := created[i].Load(); n != 1 {
			t.Errorf("shared %d reported created %d times, want once", i, n)
		}
	}
	ds, _ := s.Objects("")
	if len(ds) != 40+16*40 {
		t.Fatalf("%d objects, want %d", len(ds), 40+16*40)
	}
	for _, d := range ds {
		if _, err := s.Get(d); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRefs(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	if _, err := s.Ref(Latest); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Ref before = %v", err)
	}
	a, b := digest.Of([]byte("a")), digest.Of([]byte("b"))
	set := func(d digest.Digest) func(*digest.Digest) (digest.Digest, error) {
		return func(*digest.Digest) (digest.Digest, error) { return d, nil }
	}
	if err := s.UpdateRef(Latest, set(a)); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(s.Root(), "refs", "latest"))
	if string(raw) != a.String()+"\n" {
		t.Fatalf("refs/latest = %q", raw)
	}
	var seen *digest.Digest
	s.UpdateRef(Latest, func(old *digest.Digest) (digest.Digest, error) { seen = old; return b, nil })
	if seen == nil || *seen != a {
		t.Fatalf("update saw %v, want %s", seen, a)
	}
	boom := errors.New("boom")
	if err := s.UpdateRef(Latest, func(*digest.Digest) (digest.Digest, error) { return a, boom }); !errors.Is(err, boom) {
		t.Fatalf("failing update = %v", err)
	}
	if d, _ := s.Ref(Latest); d != b {
		t.Fatalf("failed update changed the ref to %s", d)
	}
	if err := s.UpdateRef("v1", set(a)); err != nil {
		t.Fatal(err)
	}
	if d, err := s.Ref("v1"); err != nil || d != a {
		t.Fatalf("Ref(v1) = %s, %v", d, err)
	}
	if raw, _ := os.ReadFile(filepath.Join(s.Root(), "refs", "tags", "v1")); string(raw) != a.String()+"\n" {
		t.Fatalf("refs/tags/v1 = %q", raw)
	}
	// A lock file a crashed older ctx left behind is not a lock.
	os.WriteFile(filepath.Join(s.Root(), "refs", "latest.lock"), nil, 0o644)
	if err := s.UpdateRef(Latest, set(a)); err != nil {
		t.Fatalf("UpdateRef beside a stale latest.lock = %v", err)
	}
}

func TestDeleteRef(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	a := digest.Of([]byte("a"))
	set := func(*digest.Digest) (digest.Digest, error) { return a, nil }
	for _, name := range []string{Latest, "v1"} {
		if err := s.UpdateRef(name, set); err != nil {
			t.Fatal(err)
		}
	}
	del := func(name string) error {
		l, err := s.LockRef(name)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Unlock()
		return l.Delete()
	}
	if err := del("v1"); err != nil {
		t.Fatalf("Delete(v1) = %v", err)
	}
	if _, err := s.Ref("v1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Ref(v1) after Delete = %v, want ErrNotFound", err)
	}
	if err := del("v1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Delete(v1) again = %v, want ErrNotFound", err)
	}
	if err := del(Latest); err == nil {
		t.Fatal("Delete(latest) succeeded")
	}
	if d, err := s.Ref(Latest); err != nil || d != a {
		t.Fatalf("latest after Delete(latest) = %s, %v", d, err)
	}
}

func TestRefsConcurrent(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := digest.Of([]byte(fmt.Sprint(i)))
			if err := s.UpdateRef(Latest, func(*digest.Digest) (digest.Digest, error) { return d, nil }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if _, err := s.Ref(Latest); err != nil {
		t.Fatal(err)
	}
}

func TestCheckTagName(t *testing.T) {
	t.Parallel()
	for name, ok := range map[string]bool{
		"v1": true, "release-2026.01": true, "a_b": true,
		"": false, "latest": false, "-x": false, "a/b": false, "a..b": false,
		"x.lock": false, "beef": false, "abc": true, "cafe1234": false, "a b": false,
	} {
		if err := CheckTagName(name); (err == nil) != ok {
			t.Errorf("CheckTagName(%q) = %v, want ok=%v", name, err, ok)
		}
	}
}

func TestSyncModes(t *testing.T) {
	t.Parallel()
	for _, m := range []SyncMode{SyncFS, SyncBatch, SyncEach, SyncNone} {
		s := newStore(t)
		s.SetSyncMode(m)
		for i := range 10 {
			if _, _, err := s.Put([]byte(fmt.Sprint(m, i))); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Sync(); err != nil {
			t.Fatalf("mode %d: %v", m, err)
		}
	}
}

// TestSyncBatchError: when one of the files synced together cannot be
// synced, Sync says which, and the objects stay pending, so that a later
// Sync does not report them durable.
func TestSyncBatchError(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.SetSyncMode(SyncBatch)
	var gone digest.Digest
	for i := range 40 {
		d, _, err := s.Put([]byte(fmt.Sprint("batch ", i)))
		if err != nil {
			t.Fatal(err)
		}
		if i == 17 {
			gone = d
		}
	}
	if err := os.Remove(s.ObjectPath(gone)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		err := s.Sync()
		if err == nil || !strings.Contains(err.Error(), gone.Hex()[2:]) {
			t.Fatalf("Sync with %s removed = %v, want an error naming it", gone, err)
		}
	}
}

// TestNamedTemp runs the portable path, named files in tmp/, that is used
// where unnamed temporary files are not available.
func TestNamedTemp(t *testing.T) {
	t.Parallel()
	defer func(old bool) { noUnnamed.Store(old) }(noUnnamed.Load())
	noUnnamed.Store(true)
	s := newStore(t)
	d, created, err := s.Put([]byte("named"))
	if err != nil || !created {
		t.Fatalf("Put = %v, %v", created, err)
	}
	if _, _, created, err := s.PutReader(strings.NewReader("named")); err != nil || created {
		t.Fatalf("PutReader of the same bytes = %v, %v", created, err)
	}
	fi, err := os.Stat(s.ObjectPath(d))
	if err != nil || fi.Mode().Perm() != 0o444 {
		t.Fatalf("object: %v, mode %v", err, fi.Mode())
	}
	if got, err := s.Get(d); err != nil || string(got) != "named" {
		t.Fatalf("Get = %q, %v", got, err)
	}
	if ents, _ := os.ReadDir(filepath.Join(s.Root(), "tmp")); len(ents) != 0 {
		t.Fatalf("tmp/ holds %d files", len(ents))
	}
}

func TestPutDraft(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	p, err := s.PutDraft("try-1", []byte("{}\n"), false)
	if err != nil || p != filepath.Join(s.Root(), "drafts", "try-1.json") {
		t.Fatalf("PutDraft = %s, %v", p, err)
	}
	if _, err := s.PutDraft("try-1", []byte("{\"x\":1}\n"), false); !errors.Is(err, ErrDraftExists) {
		t.Fatalf("PutDraft over an existing draft = %v, want ErrDraftExists", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{}\n" {
		t.Fatalf("refused PutDraft changed the draft to %q", b)
	}
	if _, err := s.PutDraft("try-1", []byte("{\"x\":1}\n"), true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{\"x\":1}\n" {
		t.Fatalf("replace wrote %q", b)
	}
	for _, bad := range []string{"", "../x", "a/b", "x.json", ".hidden", strings.Repeat("a", 129)} {
		if _, err := s.PutDraft(bad, nil, false); err == nil {
			t.Errorf("PutDraft(%q) succeeded", bad)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(s.Root(), "drafts")); len(ents) != 1 {
		t.Fatalf("drafts/ holds %d files, want 1", len(ents))
	}
}

// GetUpTo, and ObjectDir's, read a small object whole and verified, give
// only the size of a larger one, and fail on a missing or changed one as
// Get does.
func TestGetUpTo(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	small, _, _ := s.Put([]byte("small"))
	large, _, _ := s.Put([]byte("larger than the bound"))
	empty, _, _ := s.Put(nil)
	tampered, _, _ := s.Put([]byte("original"))
	os.Chmod(s.ObjectPath(tampered), 0o644)
	os.WriteFile(s.ObjectPath(tampered), []byte("tampered"), 0o444)
	missing := digest.Of([]byte("never stored"))

	o, err := s.OpenObjectDir()
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	into := func(d digest.Digest, max int64) ([]byte, int64, error) {
		return o.GetUpToInto(d, max, make([]byte, 0, 64))
	}
	for name, get := range map[string]func(digest.Digest, int64) ([]byte, int64, error){"Store": s.GetUpTo, "ObjectDir": o.GetUpTo, "GetUpToInto": into} {
		if b, n, err := get(small, 8); string(b) != "small" || n != 5 || err != nil {
			t.Errorf("%s: small = %q, %d, %v", name, b, n, err)
		}
		if b, n, err := get(large, 8); b != nil || n != 21 || err != nil {
			t.Errorf("%s: large = %q, %d, %v; want nil, 21, nil", name, b, n, err)
		}
		if b, n, err := get(empty, 8); b == nil || len(b) != 0 || n != 0 || err != nil {
			t.Errorf("%s: empty = %#v, %d, %v; want empty, 0, nil", name, b, n, err)
		}
		if _, _, err := get(tampered, 8); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: tampered = %v, want ErrCorrupt", name, err)
		}
		_, _, err := get(missing, 8)
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), missing.String()) {
			t.Errorf("%s: missing = %v, want ErrNotFound naming the object", name, err)
		}
	}
	// GetUpToInto reads into the buffer it is given when it has room.
	buf := make([]byte, 0, 64)
	if b, _, err := o.GetUpToInto(small, 8, buf); err != nil || string(b) != "small" || &b[0] != &buf[:1][0] {
		t.Errorf("GetUpToInto(small) = %q, %v; want it read into the buffer given", b, err)
	}
	if b, _, err := o.GetUpToInto(small, 8, buf[:0:2]); err != nil || string(b) != "small" {
		t.Errorf("GetUpToInto(small, short buffer) = %q, %v", b, err)
	}
}

// GetUpToInto reads first and asks the size only when the read fills
// what it asked for: objects shorter than the buffer, as long, longer,
// and longer than the bound all read as GetUpTo reads them.
func TestGetUpToIntoSizes(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	o, err := s.OpenObjectDir()
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	for _, n := range []int{0, 1, 15, 16, 17, 40, 64, 65, 200} {
		content := bytes.Repeat([]byte{'x'}, n)
		d, _, _ := s.Put(content)
		wantB, wantSize, wantErr := s.GetUpTo(d, 64)
		b, size, err := o.GetUpToInto(d, 64, make([]byte, 0, 16))
		if !bytes.Equal(b, wantB) || (b == nil) != (wantB == nil) || size != wantSize || err != wantErr {
			t.Errorf("%d bytes: GetUpToInto = %d bytes (nil: %v), %d, %v; GetUpTo %d bytes (nil: %v), %d, %v",
				n, len(b), b == nil, size, err, len(wantB), wantB == nil, wantSize, wantErr)
		}
	}
}

// BenchmarkPutSmall stores W1's 20 objects of about 1 KiB, each in a
// fan-out directory of its own, into a new store per iteration, with no
// flush: what creating them costs as unnamed files (O_TMPFILE, linked
// into place) and as named temporary files in tmp/ (linked, then
// removed), the fallback where there are no unnamed files.
func BenchmarkPutSmall(b *testing.B) {
	objs := make([][]byte, 20)
	for i := range objs {
		objs[i] = []byte(fmt.Sprintf("object %d ", i) + strings.Repeat("x", 1024))
	}
	for _, named := range []bool{false, true} {
		b.Run(map[bool]string{false: "unnamed", true: "named"}[named], func(b *testing.B) {
			defer func(old bool) { noUnnamed.Store(old) }(noUnnamed.Load())
			noUnnamed.Store(named)
			dir := b.TempDir()
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				s, _, err := Init(filepath.Join(dir, fmt.Sprint(i), DirName))
				if err != nil {
					b.Fatal(err)
				}
				s.SetSyncMode(SyncNone)
				b.StartTimer()
				for _, o := range objs {
					if _, _, err := s.Put(o); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
