package blame

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/store"
)

// yearStore makes a small year of sessions (both agents, snapshots,
// forks, subagents) and returns its store, packs and work tree.
func yearStore(t *testing.T, sessions int) (*store.Store, []digest.Digest, string) {
	t.Helper()
	dir := t.TempDir()
	s, _, err := store.Init(filepath.Join(dir, store.DirName))
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(dir, "repo")
	_, err = packgen.Year(s, packgen.YearOptions{Sessions: sessions, MaxSteps: 80, Seed: 7, Repo: repo, Workers: 1,
		Import: func(format, name string, data []byte, subagents []packgen.File) (*execlog.Log, error) {
			subs := make([]importer.File, len(subagents))
			for i, f := range subagents {
				subs[i] = importer.File{Name: f.Name, Data: f.Data}
			}
			l, _, err := formats.ImportLog(format, data, importer.Options{Name: name, Subagents: subs})
			return l, err
		}})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := s.Packs("")
	if err != nil {
		t.Fatal(err)
	}
	return s, ps, repo
}

// repoFiles returns the files of the work tree repo by their paths in it.
func repoFiles(repo string) map[string][]byte {
	files := map[string][]byte{}
	filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(repo, p)
			files[filepath.ToSlash(rel)] = b
		}
		return nil
	})
	return files
}

// smallEdits makes a store of 30 packs of packgen.Edits, and returns
// it, its packs, files to blame (big.go, and some of its lines moved
// to another file) and the index of a replay of every pack.
func smallEdits(t *testing.T) (*store.Store, []digest.Digest, map[string][]byte, *Index) {
	t.Helper()
	s, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ps, big, err := packgen.Edits(s, 30, 200)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"big.go": big, "moved.go": []byte(strings.Join(Lines(big)[50:60], "\n") + "\n")}
	want, _, err := New(s, ps)
	if err != nil {
		t.Fatal(err)
	}
	return s, ps, files, want
}

// opener opens the file index in dir for the packs ps, once per call.
func opener(t *testing.T, s *store.Store, dir string, ps []digest.Digest) func() *Index {
	return func() *Index {
		ix, err := openLazy(s, dir, ps)
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
}

// sameBlame blames each file with an index of its own from open (which
// replays only what the file needs) and with want, and compares the
// ranges.
func sameBlame(t *testing.T, what string, open func() *Index, want *Index, files map[string][]byte) {
	t.Helper()
	attributed := 0
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	}) {
		got, exp := mustBlame(t, open(), name, files[name]), mustBlame(t, want, name, files[name])
		g, _ := json.Marshal(Ranges(name, got))
		w, _ := json.Marshal(Ranges(name, exp))
		if string(g) != string(w) {
			t.Errorf("%s: %s:\nfile index %s\nreplay     %s", what, name, g, w)
		}
		for _, l := range exp {
			if l.By != ByUnknown {
				attributed++
			}
		}
	}
	if attributed == 0 {
		t.Errorf("%s: no line attributed: the comparison shows nothing", what)
	}
}

// TestFileIndexMatchesReplay: the file index attributes every line as a
// replay of every pack does, made and then read back, for the files of
// generated stores as they are and for files whose lines moved in from
// other files.
func TestFileIndexMatchesReplay(t *testing.T) {
	t.Parallel()
	t.Run("year", func(t *testing.T) {
		t.Parallel()
		s, ps, repo := yearStore(t, 12)
		files := repoFiles(repo)
		var all []string
		for _, n := range slices.Sorted(maps.Keys(files)) {
			all = append(all, Lines(files[n])...)
		}
		// Lines moved between files: every fifth line of the project,
		// in a file of their own and under a subdirectory's name.
		var moved strings.Builder
		for i := 0; i < len(all); i += 5 {
			moved.WriteString(all[i] + "\n")
		}
		files["moved.go"] = []byte(moved.String())
		files["vendor/x/"+packgen.HotFile] = files[packgen.HotFile]
		want, _, err := New(s, ps)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for _, run := range []string{"made", "read"} {
			sameBlame(t, run, opener(t, s, dir, ps), want, files)
		}
		// One index for every file: each replays what the files before
		// it did not, and the pool merges them.
		for _, d := range []string{t.TempDir(), dir} {
			one := opener(t, s, d, ps)()
			sameBlame(t, "one index", func() *Index { return one }, want, files)
		}
		// Some of the packs (ctx-blame --pack), from the index of all of
		// them: each file's history as those packs recorded it.
		for _, k := range []int{2, 3} {
			var some []digest.Digest
			for i, d := range ps {
				if i%k == 0 {
					some = append(some, d)
				}
			}
			want, _, err := New(s, some)
			if err != nil {
				t.Fatal(err)
			}
			sameBlame(t, fmt.Sprint("one pack in ", k), opener(t, s, dir, some), want, files)
		}
	})
	t.Run("edits", func(t *testing.T) {
		t.Parallel()
		s, _, err := store.Init(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		ps, big, err := packgen.Edits(s, 60, 300)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{"big.go": big, "pkg3/file13.go": []byte("package pkg3\n\n// F13 is session 13's.\nfunc F13() int { return 13 * 2 }\n")}
		// Half the packs, then all: the index grows by the packs it lacks.
		dir := t.TempDir()
		for _, n := range []int{len(ps) / 2, len(ps)} {
			want, _, err := New(s, ps[:n])
			if err != nil {
				t.Fatal(err)
			}
			sameBlame(t, fmt.Sprint(n, " packs"), opener(t, s, dir, ps[:n]), want, files)
		}
	})
}

// TestFileIndexDamaged: an index file that is damaged (a byte changed,
// cut short, emptied) or missing is detected and made again: the
// answer is the replay's, never one read from the damaged file.
func TestFileIndexDamaged(t *testing.T) {
	t.Parallel()
	s, ps, files, want := smallEdits(t)
	dir := t.TempDir()
	open := opener(t, s, dir, ps)
	sameBlame(t, "made", open, want, files)
	var names []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	kinds := map[string]bool{}
	for _, n := range names {
		rel, _ := filepath.Rel(dir, n)
		kinds[strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]] = true
	}
	if len(kinds) != 5 { // p, b, r, l, catalog
		t.Fatalf("index files of kinds %v, want 5", kinds)
	}
	t.Logf("%d index files", len(names))
	damage := map[string]func([]byte) []byte{
		"a byte changed": func(b []byte) []byte { b[len(b)*2/3] ^= 0x01; return b },
		"cut short":      func(b []byte) []byte { return b[:len(b)/2] },
		"emptied":        func([]byte) []byte { return nil },
	}
	for _, what := range slices.Sorted(func(yield func(string) bool) {
		for k := range damage {
			if !yield(k) {
				return
			}
		}
	}) {
		restored := 0
		for _, n := range names {
			result := strings.Contains(n, string(filepath.Separator)+"r"+string(filepath.Separator))
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(n, damage[what](b), 0o600)
			if !result {
				// Without the results, the blame reads the entries.
				os.RemoveAll(filepath.Join(dir, "r"))
			}
			sameBlame(t, what+" "+n, open, want, files)
			after, err := os.ReadFile(n)
			magic := map[bool]string{true: resultMagic, false: blobMagic}[result]
			switch {
			case strings.HasSuffix(n, "catalog"):
				magic = catalogMagic
			case strings.Contains(n, string(filepath.Separator)+"p"+string(filepath.Separator)):
				magic = entryMagic
			case strings.Contains(n, string(filepath.Separator)+"l"+string(filepath.Separator)):
				magic = listMagic // read only when a result is written
			}
			_, bad := unframe(magic, after)
			switch {
			case err == nil && bad == nil:
				restored++
			case strings.HasSuffix(n, "catalog") || result:
				t.Errorf("%s: %s, read by every blame, not made again", what, n)
			default:
				os.WriteFile(n, b, 0o600) // not read: the pack wrote nothing blamed
			}
		}
		if restored < 5 {
			t.Errorf("%s: %d damaged files made again", what, restored)
		}
	}
	for _, n := range names {
		os.Remove(n)
	}
	sameBlame(t, "removed", open, want, files)
}

// TestFileIndexUnwritable: a cache that cannot be written (a file where
// its directory should be, or a directory without write permission)
// changes nothing in the answer.
func TestFileIndexUnwritable(t *testing.T) {
	t.Parallel()
	s, ps, files, want := smallEdits(t)
	file := filepath.Join(t.TempDir(), "files")
	os.WriteFile(file, []byte("not a directory"), 0o600)
	ro := t.TempDir()
	os.Chmod(ro, 0o500)
	t.Cleanup(func() { os.Chmod(ro, 0o700) })
	for _, dir := range []string{file, filepath.Join(ro, "files")} {
		sameBlame(t, dir, opener(t, s, dir, ps), want, files)
	}
}

// TestPoolMerge: the lines of histories replayed apart merge in the
// order of their steps, so that the last writer of a line is found as
// one replay of both would find it.
func TestPoolMerge(t *testing.T) {
	t.Parallel()
	at := func(min int) time.Time { return time.Date(2026, 1, 1, 10, min, 0, 0, time.UTC) }
	ev := func(pack string, min int) *event {
		return &event{at: at(min), created: at(0), pack: pack, origin: &Origin{Pack: pack, Timestamp: at(min).Format(time.RFC3339)}}
	}
	const l = "a line written twice in two files"
	a, b := pool{}, pool{}
	a.add([]string{l}, ev("sha256:a", 1))
	a.add([]string{l}, ev("sha256:a", 5))
	b.add([]string{l}, ev("sha256:b", 3))
	b.add([]string{l}, ev("sha256:b", 7))
	a.merge(b)
	for until, want := range map[int]string{0: "sha256:b", 6: "sha256:a", 4: "sha256:b", 2: "sha256:a"} {
		var u time.Time
		if until > 0 {
			u = at(until)
		}
		if w, ok := a.find(l, u); !ok || w.origin.Pack != want {
			t.Errorf("until minute %d: %v, want %s", until, w.origin, want)
		}
	}
}

// heapAfterGC is the heap in use once the garbage is collected.
func heapAfterGC() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestFileIndexBoundedMemory: what the file index keeps while a blame
// runs follows what the blame needs, not what the packs hold. Opening
// it keeps of each pack its paths and session, not the metadata the
// session was read from (the catalog of a year's store held a copy of
// every pack's metadata: 145 MiB); the edits New reads of each pack
// keep none of its manifest (their parameters were slices of it), and
// it holds the text of a view once, not once per snapshot; a blame keeps of the edits it
// replayed the lines they added, not each version of the file those
// lines are part of; and one that blames every file of a year keeps
// their histories, not what each replay read to make one (every view of
// each file: the index's blobs). Not parallel: it measures the heap.
func TestFileIndexBoundedMemory(t *testing.T) {
	s, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const packs, note = 16, 512 << 10
	var big strings.Builder
	for i := range 8000 {
		fmt.Fprintf(&big, "\tcase %d: return \"value number %d of the table\"\n", i, i)
	}
	text := big.String() // 350 KB
	var ps []digest.Digest
	for i := range packs {
		old := fmt.Sprintf("value number %d of the table", i*100)
		ps = append(ps, pack(t, s, session{
			id:      fmt.Sprintf("s%02d", i),
			created: fmt.Sprintf("2026-01-01T10:%02d:00Z", 10+i),
			inputs:  map[string]string{"table.go": text},
			steps:   []step{replace("/home/u/proj/table.go", old, fmt.Sprintf("the value session %d changed", i))},
			note:    strings.Repeat(string(rune('a'+i)), note),
		}))
	}
	before := heapAfterGC()
	ix, err := openLazy(s, t.TempDir(), ps)
	if err != nil {
		t.Fatal(err)
	}
	opened := heapAfterGC()
	t.Logf("open: %d KiB kept for %d packs of %d KiB of metadata each", (opened-before)>>10, packs, note>>10)
	if opened-before > packs*note/4 {
		t.Errorf("opening the index keeps %d KiB, more than a quarter of the packs' metadata (%d KiB)", (opened-before)>>10, packs*note>>10)
	}
	// New holds every pack's edits until it has replayed them all.
	held, err := loadAll(s, ps)
	if err != nil {
		t.Fatal(err)
	}
	loaded := heapAfterGC()
	runtime.KeepAlive(held)
	t.Logf("edits: %d KiB kept for %d packs", (loaded-opened)>>10, packs)
	if loaded-opened > packs*note/4 {
		t.Errorf("the packs' edits keep %d KiB, more than a quarter of the packs' metadata (%d KiB)", (loaded-opened)>>10, packs*note>>10)
	}
	held = nil
	opened = heapAfterGC()
	lines := mustBlame(t, ix, "table.go", []byte(text))
	if len(lines) != 8000 {
		t.Fatalf("%d lines blamed, want 8000", len(lines))
	}
	blamed := heapAfterGC()
	runtime.KeepAlive(ix)
	t.Logf("blame: %d KiB kept for a file of %d KiB edited %d times", (blamed-opened)>>10, len(text)>>10, packs)
	// The last version (its lines) and the views the sessions read are
	// kept; the versions each edit made are not.
	if limit := int64(6 * len(text)); blamed-opened > limit {
		t.Errorf("a blame keeps %d KiB, more than %d KiB: the versions its edits made", (blamed-opened)>>10, limit>>10)
	}

	s, ps, repo := yearStore(t, 30)
	dir := t.TempDir()
	if ix, err = openLazy(s, dir, ps); err != nil {
		t.Fatal(err)
	}
	blobs := int64(0)
	filepath.WalkDir(filepath.Join(dir, "b"), func(p string, d fs.DirEntry, err error) error {
		if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() {
			blobs += fi.Size()
		}
		return nil
	})
	files := repoFiles(repo)
	before = heapAfterGC()
	for _, n := range slices.Sorted(maps.Keys(files)) {
		mustBlame(t, ix, n, files[n])
	}
	blamed = heapAfterGC()
	runtime.KeepAlive(ix)
	t.Logf("every file: %d KiB kept for %d files, the index's blobs %d KiB", (blamed-before)>>10, len(files), blobs>>10)
	if blamed-before > blobs {
		t.Errorf("a blame of every file keeps %d KiB, more than the index's blobs (%d KiB)", (blamed-before)>>10, blobs>>10)
	}

	// New holds every pack's edits: each view's text once.
	before = heapAfterGC()
	all, err := loadAll(s, ps)
	if err != nil {
		t.Fatal(err)
	}
	loaded = heapAfterGC()
	views, unique := 0, 0
	seen := map[string]bool{}
	for _, pe := range all {
		for _, v := range pe.Views {
			views += len(v.Text)
			if !seen[v.Text] {
				seen[v.Text] = true
				unique += len(v.Text)
			}
		}
	}
	runtime.KeepAlive(all)
	t.Logf("edits of %d packs: %d KiB kept, views %d KiB, %d KiB of them different", len(ps), (loaded-before)>>10, views>>10, unique>>10)
	if limit := int64(views+unique) / 2; loaded-before > limit {
		t.Errorf("the edits of %d packs keep %d KiB, more than %d KiB: a view's text for each snapshot that recorded it", len(ps), (loaded-before)>>10, limit>>10)
	}
}

// TestFileIndexSideBySide: packs derived by several workers at once
// make the index one worker makes, file for file (the catalog lists
// the packs in the order asked, whichever is derived first), and a pack
// that cannot be read stops the run with its error.
func TestFileIndexSideBySide(t *testing.T) {
	t.Parallel()
	s, ps, files, want := smallEdits(t)
	index := func(workers int, dir string) error {
		fx := &fileIndex{dir: dir, workers: workers, mem: map[string][]byte{}}
		return fx.update(s, fx.loadCatalog(), ps)
	}
	one, many := t.TempDir(), t.TempDir()
	if err := index(1, one); err != nil {
		t.Fatal(err)
	}
	if err := index(4, many); err != nil {
		t.Fatal(err)
	}
	read := func(dir string) map[string]string {
		out := map[string]string{}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(dir, p)
				out[rel] = string(b)
			}
			return nil
		})
		return out
	}
	a, b := read(one), read(many)
	if len(a) < len(ps) || len(a) != len(b) {
		t.Fatalf("%d files with one worker, %d with four, for %d packs", len(a), len(b), len(ps))
	}
	for n, x := range a {
		if b[n] != x {
			t.Errorf("%s differs with four workers", n)
		}
	}
	sameBlame(t, "four workers", opener(t, s, many, ps), want, files)

	// A manifest gone from the middle of the packs.
	gone := ps[len(ps)/2]
	if err := os.Remove(s.ObjectPath(gone)); err != nil {
		t.Fatal(err)
	}
	err := index(4, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), gone.Hex()) {
		t.Errorf("index with %s gone: %v, want its error", gone, err)
	}
}
