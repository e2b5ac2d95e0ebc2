package blame

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// growing makes a store of n packs, sessions each rewriting a.txt or
// b.txt whole with one line more (a.txt first, then every third session
// b.txt), and returns it, its packs in order and the files as the last
// sessions left them.
func growing(t *testing.T, n int) (*store.Store, []digest.Digest, map[string][]byte) {
	t.Helper()
	s, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	var ps []digest.Digest
	for i := range n {
		f := "a.txt"
		if i%3 == 2 {
			f = "b.txt"
		}
		text[f] += fmt.Sprintf("line %d of %s, by session %d\n", i, f, i)
		ps = append(ps, pack(t, s, session{
			id: fmt.Sprint("s", i), created: fmt.Sprintf("2026-01-01T10:%02d:00Z", i),
			steps: []step{write(f, text[f])},
		}))
	}
	return s, ps, map[string][]byte{"a.txt": []byte(text["a.txt"]), "b.txt": []byte(text["b.txt"])}
}

// after returns the files of growing as they stood after its first k
// sessions, those that were by then.
func after(last map[string][]byte, k int) map[string][]byte {
	files := map[string][]byte{}
	for f, b := range last {
		var kept []string
		for _, l := range Lines(b) {
			var i int
			fmt.Sscanf(l[strings.LastIndex(l, " ")+1:], "%d", &i)
			if i < k {
				kept = append(kept, l)
			}
		}
		if kept != nil {
			files[f] = []byte(strings.Join(kept, "\n") + "\n")
		}
	}
	return files
}

// indexFiles returns the regular files under the kind directory (r, l)
// of the file index in dir, by their names there, with their contents.
func indexFiles(t *testing.T, dir, kind string) map[string]string {
	t.Helper()
	got := map[string]string{}
	filepath.WalkDir(filepath.Join(dir, kind), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, p)
			got[rel] = string(b)
		}
		return nil
	})
	return got
}

// blameEach blames each of files with the packs ps, in the index in
// dir, and compares the answers with a replay of ps.
func blameEach(t *testing.T, what string, s *store.Store, dir string, ps []digest.Digest, files map[string][]byte) {
	t.Helper()
	want, _, err := New(s, ps)
	if err != nil {
		t.Fatal(err)
	}
	sameBlame(t, what, opener(t, s, dir, ps), want, files)
}

// grown blames files with the first k packs of ps in a new index, k =
// 1 … all but the last, and returns the index's directory and its
// results.
func grown(t *testing.T, s *store.Store, ps []digest.Digest, files map[string][]byte) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for k := 1; k < len(ps); k++ {
		blameEach(t, "made", s, dir, ps[:k], after(files, k))
	}
	return dir, indexFiles(t, dir, "r")
}

// keptAll checks that every result before is still in the index in dir.
func keptAll(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	now := indexFiles(t, dir, "r")
	for r := range before {
		if _, ok := now[r]; !ok {
			t.Errorf("%s removed through a list not read", r)
		}
	}
}

// TestFileIndexResultsBounded: a file blamed after each pack that
// touches it is added leaves at most keptResults results in r/ (one
// file per result, counted), with answers a replay gives; the results
// of another file, blamed as often, are kept beside them, and blaming
// again with packs replayed recently (another store, --pack) reads what
// is kept.
func TestFileIndexResultsBounded(t *testing.T) {
	t.Parallel()
	const n = 18
	s, ps, last := growing(t, n)
	dir := t.TempDir()
	for k := 1; k <= n; k++ {
		files := after(last, k)
		blameEach(t, fmt.Sprint(k, " packs"), s, dir, ps[:k], files)
		results, lists := indexFiles(t, dir, "r"), indexFiles(t, dir, "l")
		if len(lists) != len(files) {
			t.Fatalf("%d packs: %d lists of results for %d files blamed", k, len(lists), len(files))
		}
		if len(results) > keptResults*len(files) {
			t.Fatalf("%d packs: %d results in r/ for %d files, more than %d each", k, len(results), len(files), keptResults)
		}
		for l, b := range lists {
			body, err := unframe(listMagic, []byte(b))
			names, ok := parseList(body)
			if err != nil || !ok || len(names) == 0 || len(names) > keptResults {
				t.Fatalf("%d packs: list %s: %q", k, l, b)
			}
			for _, r := range names {
				if _, ok := results[resultName(r)]; !ok {
					t.Errorf("%d packs: %s names %s, not in r/", k, l, r)
				}
			}
		}
	}
	results := indexFiles(t, dir, "r")
	if len(results) != 2*keptResults {
		t.Errorf("%d results in r/ after %d packs for 2 files, want %d", len(results), n, 2*keptResults)
	}
	// The packs of the three blames before the last (each a result of
	// its own), in turn, and again: every answer read from r/, none
	// written or removed.
	for range 2 {
		for k := n - 3; k <= n; k++ {
			blameEach(t, fmt.Sprint("again ", k, " packs"), s, dir, ps[:k], last)
		}
	}
	if after := indexFiles(t, dir, "r"); !maps.Equal(after, results) {
		t.Errorf("blaming with packs replayed recently changed r/: %d results before, %d after", len(results), len(after))
	}
}

// TestFileIndexResultsListDamaged: a list of results that is damaged
// or names what is not a result is taken as empty: the blame is a
// replay's, the list is written again, and nothing it names is removed.
func TestFileIndexResultsListDamaged(t *testing.T) {
	t.Parallel()
	s, ps, files := growing(t, 8) // the last pack's a.txt
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("keep"), 0o600)
	rel := func(dir string) string { r, _ := filepath.Rel(dir, victim); return r }
	for what, damage := range map[string]func(dir string, old []byte) []byte{
		"garbage": func(string, []byte) []byte { return []byte("garbage\n") },
		"a byte changed": func(_ string, old []byte) []byte {
			b := slices.Clone(old)
			b[len(b)-2] ^= 1
			return b
		},
		"names outside the cache": func(dir string, _ []byte) []byte {
			return frame(listMagic, []byte(strings.Repeat(rel(dir)+"\n", keptResults+1)))
		},
	} {
		t.Run(what, func(t *testing.T) {
			t.Parallel()
			dir, before := grown(t, s, ps, files)
			lists := indexFiles(t, dir, "l")
			for l, b := range lists {
				os.WriteFile(filepath.Join(dir, l), damage(dir, []byte(b)), 0o600)
			}
			blameEach(t, what, s, dir, ps, files)
			keptAll(t, dir, before)
			// a.txt's list is written again, naming its new result alone;
			// b.txt's, not read, stays as it was.
			again := 0
			for l, old := range lists {
				b, _ := os.ReadFile(filepath.Join(dir, l))
				body, err := unframe(listMagic, b)
				if names, ok := parseList(body); err == nil && ok && len(names) == 1 {
					again++
				} else if string(b) != string(damage(dir, []byte(old))) {
					t.Errorf("%s: %s neither written again nor left: %q", what, l, b)
				}
			}
			if again != 1 {
				t.Errorf("%s: %d lists written again, want 1", what, again)
			}
			if b, err := os.ReadFile(victim); err != nil || string(b) != "keep" {
				t.Errorf("%s: a file outside the cache changed: %q, %v", what, b, err)
			}
		})
	}
}

// TestFileIndexResultsSideBySide: blames of one file with different
// packs at once, in one index, each writing results and removing those
// that fall off its list, all answer as a replay; what they leave in r/
// is the bound and at most a result per blame that ran at once.
func TestFileIndexResultsSideBySide(t *testing.T) {
	t.Parallel()
	const n, side = 18, 6
	s, ps, last := growing(t, n)
	dir := t.TempDir()
	var wg sync.WaitGroup
	for g := range side {
		wg.Go(func() {
			for round := range 3 {
				k := n - side + (g+round)%side + 1
				blameEach(t, fmt.Sprint("side by side, ", k, " packs"), s, dir, ps[:k], after(last, k))
			}
		})
	}
	wg.Wait()
	if results := indexFiles(t, dir, "r"); len(results) > 2*keptResults+side {
		t.Errorf("%d results in r/ for 2 files after %d blames at once", len(results), side)
	}
	blameEach(t, "after", s, dir, ps, last)
}
