package main

import (
	"path/filepath"
	"testing"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/internal/packgen/importlog"
	"github.com/ctx-tools/ctx/lib/fsck"
	"github.com/ctx-tools/ctx/lib/packlog"
	"github.com/ctx-tools/ctx/lib/store"
)

// A tiny year: the store verifies whole (ctx-verify --fsck's check), and
// the listing (ctx-log's) holds every snapshot and fork the generator
// made, of both agents, with the forks' parents and the tags.
func TestTinyYear(t *testing.T) {
	s, _, err := store.Init(filepath.Join(t.TempDir(), store.DirName))
	if err != nil {
		t.Fatal(err)
	}
	const sessions = 26
	st, err := packgen.Year(s, packgen.YearOptions{Sessions: sessions, MaxSteps: 60, Seed: 3, Import: importlog.Log})
	if err != nil {
		t.Fatal(err)
	}
	if st.Sessions != sessions || st.Claude == 0 || st.Codex == 0 || st.Subagents == 0 || st.Forks == 0 || st.Tags == 0 {
		t.Fatalf("stats %+v: want %d sessions of both agents, with subagents, forks and tags", st, sessions)
	}
	if st.Packs < sessions+st.Forks {
		t.Errorf("%d packs for %d sessions and %d forks", st.Packs, sessions, st.Forks)
	}

	rep, err := fsck.Store(s, fsck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Packs != st.Packs {
		t.Fatalf("fsck: ok %v, %d packs (want %d): %+v", rep.OK(), rep.Packs, st.Packs, rep.Violations)
	}

	l, err := packlog.List(s, packlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Problems) > 0 || len(l.Entries) != st.Packs {
		t.Fatalf("listed %d packs (want %d), problems %v", len(l.Entries), st.Packs, l.Problems)
	}
	listed := map[string]bool{}
	parents, tagged := 0, 0
	for _, e := range l.Entries {
		listed[e.Hash.String()] = true
		if !e.Parent.IsZero() {
			parents++
		}
		tagged += len(e.Tags)
	}
	if parents != st.Forks || tagged != st.Tags {
		t.Errorf("listed %d packs with a parent and %d tags, want %d and %d", parents, tagged, st.Forks, st.Tags)
	}
	for i, d := range st.Last {
		if !listed[d.String()] {
			t.Errorf("session %d's last snapshot %s is not listed", i, d)
		}
	}
	if !listed[st.Latest.String()] {
		t.Errorf("latest %s is not listed", st.Latest)
	}
}
