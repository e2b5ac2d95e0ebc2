// Command genstore makes a year of sessions in a store, the fixture of
// scripts/bench-year.sh (internal/packgen.Year):
//
//	go run ./scripts/genstore [-scale 1] [-seed 1] DIR
//
// It makes DIR/.ctx, a store holding 2,000·scale sessions of Claude Code
// and Codex (50 to 2,000 steps each, packed at several lengths as the
// hooks pack them, with subagents, forks and tags, over a year), and
// DIR/repo, the git repository of the project they work on: its file
// internal/api/routes.go is edited by 3 sessions in 20. The sessions are
// rendered in their agents' own formats and packed in process as
// ctx-pack --from packs them (packing 5,000 snapshots through the binary
// would spend most of the time starting processes and syncing). At scale
// 1 the store holds about 5 GB. DIR/sessions.txt lists each session's
// last snapshot, one hash a line in time order. It prints what it made
// as one JSON line on stdout, and its progress on stderr.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/internal/packgen/importlog"
	"github.com/ctx-tools/ctx/lib/store"
)

func main() {
	scale := flag.Float64("scale", 1, "fraction of the full size: sessions = 2000·scale")
	maxSteps := flag.Int("max-steps", 2000, "most steps of a session")
	seed := flag.Uint64("seed", 1, "the same seed makes the same store")
	quiet := flag.Bool("q", false, "no progress on stderr")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: genstore [-scale F] [-max-steps N] [-seed N] DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *scale <= 0 || *maxSteps < 50 {
		flag.Usage()
		os.Exit(3)
	}
	dir := flag.Arg(0)
	s, _, err := store.Init(filepath.Join(dir, store.DirName))
	if err != nil {
		fmt.Fprintln(os.Stderr, "genstore: error:", err)
		os.Exit(2)
	}
	start := time.Now()
	o := packgen.YearOptions{
		Sessions: max(1, int(2000**scale+0.5)),
		MaxSteps: *maxSteps,
		Seed:     *seed,
		Repo:     filepath.Join(dir, "repo"),
		Import:   importlog.Log,
	}
	if !*quiet {
		o.Progress = func(done, total int) {
			if done%50 == 0 || done == total {
				fmt.Fprintf(os.Stderr, "genstore: %d of %d sessions, %s\n", done, total, time.Since(start).Round(time.Second))
			}
		}
	}
	st, err := packgen.Year(s, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genstore: error:", err)
		os.Exit(2)
	}
	var list strings.Builder
	for _, d := range st.Last {
		list.WriteString(d.String() + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "sessions.txt"), []byte(list.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "genstore: error:", err)
		os.Exit(2)
	}
	out, _ := json.Marshal(map[string]any{
		"sessions": st.Sessions, "claude_code": st.Claude, "codex": st.Codex, "packs": st.Packs,
		"forks": st.Forks, "tags": st.Tags, "subagents": st.Subagents, "steps": st.Steps,
		"hot_file": packgen.HotFile, "hot_sessions": st.HotSessions,
		"transcript_bytes": st.TranscriptBytes, "latest": st.Latest.String(),
		"seconds": time.Since(start).Seconds(),
	})
	fmt.Println(string(out))
}
