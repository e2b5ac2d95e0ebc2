package blame

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
		files := map[string][]byte{}
		var all []string
		filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				b, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(repo, p)
				files[filepath.ToSlash(rel)] = b
				all = append(all, Lines(b)...)
			}
			return nil
		})
		// Lines moved between files: every fifth line of the project,
		// in a file of their own and under a subdirectory's name.
		var moved strings.Builder
		for i := 0; i < len(all); i += 5 {
			moved.WriteString(all[i] + "\n")
		}
		files["moved.go"] = []byte(moved.String())
		files["vendor/x/"+packgen.HotFile] = files[packgen.HotFile]
		want, _, err := New(s, ps, nil)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for _, run := range []string{"made", "read"} {
			sameBlame(t, run, func() *Index {
				ix, err := openLazy(s, dir, ps)
				if err != nil {
					t.Fatal(err)
				}
				return ix
			}, want, files)
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
			want, _, err := New(s, ps[:n], nil)
			if err != nil {
				t.Fatal(err)
			}
			sameBlame(t, fmt.Sprint(n, " packs"), func() *Index {
				ix, err := openLazy(s, dir, ps[:n])
				if err != nil {
					t.Fatal(err)
				}
				return ix
			}, want, files)
		}
	})
}
