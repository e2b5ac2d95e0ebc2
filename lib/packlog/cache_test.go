package packlog

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

func cacheFile(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range ents {
		files = append(files, filepath.Join(dir, e.Name()))
	}
	if len(files) != 1 {
		t.Fatalf("cache directory holds %v, want one file", files)
	}
	return files[0]
}

func TestCache(t *testing.T) {
	defer func(n int) { cacheMin = n }(cacheMin)
	cacheMin = 10
	s, ds := newStore(t, 40)
	dir := t.TempDir()
	opt := Options{CacheDir: dir}
	want := reference(t, s, ds)

	// The first listing reads packs/ and writes the cache.
	l, err := List(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(summaries(l.Entries), summaries(want)) {
		t.Fatal("first listing differs")
	}
	file := cacheFile(t, dir)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Count(b, []byte{'\n'}); lines != 41 {
		t.Fatalf("cache has %d lines, want header and 40 entries", lines)
	}
	if !strings.HasPrefix(string(b), "ctx-packlog-cache 1 ") || !strings.Contains(string(b), s.Root()) {
		t.Fatalf("cache header: %.80q", b)
	}

	// Prove the next listing reads the cache: doctor one cached entry (as
	// if the pack had 99 steps) and see it come back.
	victim := ds[7]
	orig, err := s.PackEntry(victim)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := manifest.ParseSummary(victim, orig)
	if err != nil {
		t.Fatal(err)
	}
	sum.Steps = 99
	doctored := encode(t, sum)
	b2 := bytes.Replace(b, orig, doctored, 1)
	if bytes.Equal(b2, b) {
		t.Fatal("entry not found in the cache")
	}
	if err := os.WriteFile(file, b2, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := steps(t, s, opt, victim); got != 99 {
		t.Fatalf("steps %d: the cache was not read", got)
	}
	if got := steps(t, s, Options{}, victim); got == 99 {
		t.Fatal("listing without a cache read the cache")
	}

	// A different entry file under the name (another inode: written
	// beside it, then renamed over it) is read from packs/, not taken
	// from the cache.
	p := s.Path("packs", victim.Hex())
	if err := os.WriteFile(p+".new", orig, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p+".new", p); err != nil {
		t.Fatal(err)
	}
	if got, want := steps(t, s, opt, victim), wantSteps(want, victim); got != want {
		t.Fatalf("steps %d after the entry file changed, want %d", got, want)
	}

	// New packs and corrupt entries are seen with the cache in place; a
	// corrupt entry is never cached, so it is reported every time.
	more, err := packgen.Generate(s, packgen.Options{N: 3, Chain: 1, Start: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	bad := digest.Of([]byte("bad"))
	if err := os.WriteFile(s.Path("packs", bad.Hex()), []byte("junk\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		l, err = List(s, Options{CacheDir: dir, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Problems) != 1 || l.Total != 43 {
			t.Fatalf("problems %v, total %d", l.Problems, l.Total)
		}
		got := []digest.Digest{l.Entries[0].Hash, l.Entries[1].Hash, l.Entries[2].Hash}
		if !slices.Equal(got, []digest.Digest{more[2], more[1], more[0]}) {
			t.Fatalf("newest %v, want the 3 new packs", got)
		}
	}

	// A cache for another store at another path, or a mangled one, is
	// ignored and replaced.
	for _, junk := range [][]byte{
		bytes.Replace(b, []byte(s.Root()), []byte("/elsewhere"), 1),
		[]byte("ctx-packlog-cache 1 garbage\n"),
		b[:len(b)/2],
	} {
		if err := os.WriteFile(file, junk, 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := List(s, opt)
		if err != nil {
			t.Fatal(err)
		}
		if l.Total != 43 || len(l.Entries) != 43 {
			t.Fatalf("listed %d of %d", len(l.Entries), l.Total)
		}
		nb, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if lines := bytes.Count(nb, []byte{'\n'}); lines != 44 {
			t.Fatalf("rewritten cache has %d lines, want 44", lines)
		}
	}
}

// steps returns the step count List gives for pack d.
func steps(t *testing.T, s *store.Store, opt Options, d digest.Digest) int {
	t.Helper()
	l, err := List(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range l.Entries {
		if e.Hash == d {
			return e.Steps
		}
	}
	t.Fatalf("%s not listed", d)
	return 0
}

func wantSteps(es []Entry, d digest.Digest) int {
	for _, e := range es {
		if e.Hash == d {
			return e.Steps
		}
	}
	return -1
}

// withUsage rewrites every entry of ds with a usage of its own (a new
// file renamed over the old, as a pack written again would be), and
// returns the entries' usage by pack.
func withUsage(t *testing.T, s *store.Store, ds []digest.Digest) map[digest.Digest]int64 {
	t.Helper()
	want := map[digest.Digest]int64{}
	for i, d := range ds {
		b, err := s.PackEntry(d)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := manifest.ParseSummary(d, b)
		if err != nil {
			t.Fatal(err)
		}
		n := int64(1000 + i)
		sum.Usage = &manifest.SummaryUsage{Tokens: manifest.Usage{InputTokens: &n}}
		want[d] = n
		p := s.Path("packs", d.Hex())
		if err := os.WriteFile(p+".new", encode(t, sum), 0o444); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p+".new", p); err != nil {
			t.Fatal(err)
		}
	}
	return want
}

// Entries taken from the cache are decoded only as far as ordering needs:
// their usage when they are listed, and their packing time only for those
// as new as the last listed. What is listed is what a listing without the
// cache gives, and a cached usage that does not decode is read again from
// packs/.
func TestCacheLazy(t *testing.T) {
	defer func(n int) { cacheMin = n }(cacheMin)
	cacheMin = 10
	defer func(f func(string) (os.FileInfo, error)) { lstat = f }(lstat)
	var stats int
	lstat = func(name string) (os.FileInfo, error) { stats++; return os.Lstat(name) }

	s, ds := newStore(t, 40) // 4 packs per created time
	usage := withUsage(t, s, ds)
	dir := t.TempDir()
	q, err := ParseQuery("tokens.input_tokens>1020")
	if err != nil {
		t.Fatal(err)
	}
	opts := []Options{{}, {Limit: 1}, {Limit: 5}, {Limit: 3, Filter: Filter{Where: []Query{q}}}}
	var want [][]Entry
	for _, o := range opts {
		l, err := List(s, o)
		if err != nil || len(l.Problems) > 0 {
			t.Fatal(err, l.Problems)
		}
		want = append(want, l.Entries)
	}
	if _, err := List(s, Options{CacheDir: dir}); err != nil { // writes the cache
		t.Fatal(err)
	}
	entries, _, err := read(s, dir, cacheMin)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Usage != nil || e.usageRaw == nil {
			t.Fatalf("entry %s from the cache: usage decoded before it is listed", e.Hash)
		}
	}
	for i, o := range opts {
		o.CacheDir = dir
		stats = 0
		l, err := List(s, o)
		if err != nil || len(l.Problems) > 0 {
			t.Fatal(err, l.Problems)
		}
		if !slices.Equal(hashes(l.Entries), hashes(want[i])) {
			t.Errorf("%+v: listed %v, want %v", o, hashes(l.Entries), hashes(want[i]))
		}
		for _, e := range l.Entries {
			if e.Usage == nil || *e.Usage.Tokens.InputTokens != usage[e.Hash] {
				t.Errorf("%+v: %s listed with usage %+v, want %d input tokens", o, e.Hash, e.Usage, usage[e.Hash])
			}
		}
		if o.Limit == 1 && stats > 4 {
			t.Errorf("-n 1 read %d packing times, want only the newest instant's 4", stats)
		}
	}

	// A cached usage that is not a usage object: the entry is read again.
	file := cacheFile(t, dir)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	newest := want[1][0].Hash
	orig, err := s.PackEntry(newest)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(orig, []byte(`"usage":`))
	doctored := append(append([]byte{}, orig[:i]...), `"usage":{"bogus":1}}`+"\n"...)
	b2 := bytes.Replace(b, orig, doctored, 1)
	if bytes.Equal(b, b2) {
		t.Fatal("entry not found in the cache")
	}
	if err := os.WriteFile(file, b2, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := List(s, Options{CacheDir: dir, Limit: 1})
	if err != nil || len(l.Problems) > 0 {
		t.Fatal(err, l.Problems)
	}
	if len(l.Entries) != 1 || l.Entries[0].Hash != newest || *l.Entries[0].Usage.Tokens.InputTokens != usage[newest] {
		t.Errorf("listed %+v with a doctored cached usage", l.Entries)
	}
}
