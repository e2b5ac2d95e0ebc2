package packlog

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/internal/packgen/importlog"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// sessionStore returns a store of 25 generated agent sessions, packed at
// one to three lengths each (the 25th forked), and its packs.
func sessionStore(t *testing.T) (*store.Store, []Entry) {
	t.Helper()
	s, _, err := store.Init(t.TempDir() + "/.ctx")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := packgen.Year(s, packgen.YearOptions{Sessions: 25, MinSteps: 20, MaxSteps: 60, Seed: 7, Import: importlog.Log}); err != nil {
		t.Fatal(err)
	}
	es, probs, err := Read(s)
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	return s, es
}

// lineageByStep is Lineage taken a step at a time: the parent, else
// Previous.
func lineageByStep(t *testing.T, s *store.Store, d digest.Digest) []digest.Digest {
	t.Helper()
	var out []digest.Digest
	for !d.IsZero() {
		e, err := ReadOne(s, d)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
		if d = e.Parent; d.IsZero() {
			if d, err = Previous(s, e.Hash); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// Lineage, which finds a session's snapshots once, walks what Previous
// walks a step at a time, through forks and snapshots.
func TestLineageSnapshots(t *testing.T) {
	t.Parallel()
	s, es := sessionStore(t)
	long, forked := 0, 0
	for _, e := range es {
		got, err := Lineage(s, e.Hash)
		if err != nil {
			t.Fatal(err)
		}
		var gotHashes []digest.Digest
		for _, g := range got {
			gotHashes = append(gotHashes, g.Hash)
		}
		want := lineageByStep(t, s, e.Hash)
		if !slices.Equal(gotHashes, want) {
			t.Errorf("lineage of %s: %v, want %v", e.Hash.Short(), gotHashes, want)
		}
		if len(want) >= 3 {
			long++
		}
		if !e.Parent.IsZero() && len(want) >= 3 {
			forked++
		}
	}
	if long == 0 || forked == 0 {
		t.Fatalf("%d lineages of 3 packs or more, %d through a fork", long, forked)
	}
}

// A snapshot whose packs/ entry's usage does not decode is not one
// Previous steps to, as Read leaves it out (Snapshots decodes the usage
// of only the entries it keeps).
func TestPreviousCorruptUsage(t *testing.T) {
	t.Parallel()
	s, es := sessionStore(t)
	var snaps []digest.Digest
	for _, e := range es {
		if got, err := Snapshots(s, e.Hash); err != nil {
			t.Fatal(err)
		} else if len(got) >= 3 {
			snaps = got
			break
		}
	}
	if snaps == nil {
		t.Fatal("no session of 3 snapshots")
	}
	mid := snaps[1]
	file := s.PackEntryPath(mid)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(b, []byte(`"usage":{`), []byte(`"usage":{"bogus":1,`), 1)
	if bytes.Equal(bad, b) {
		t.Fatalf("no usage in %s", b)
	}
	if err := os.Chmod(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, bad, 0o444); err != nil {
		t.Fatal(err)
	}
	if _, probs, err := Read(s); err != nil || len(probs) != 1 {
		t.Fatalf("Read: %v, problems %v; want the entry of %s", err, probs, mid.Short())
	}
	if got, err := Previous(s, snaps[0]); err != nil || got != snaps[2] {
		t.Errorf("Previous of %s = %s, %v; want %s, past %s", snaps[0].Short(), got.Short(), err, snaps[2].Short(), mid.Short())
	}
}
