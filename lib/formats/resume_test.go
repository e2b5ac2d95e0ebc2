package formats_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
	"github.com/ctx-tools/ctx/lib/store"
)

// A resumeFixture is a transcript to cut.
type resumeFixture struct {
	format, name string
	data         []byte
}

// resumeFixtures are the Claude Code and Codex transcripts to cut: the
// package's own, the shared real sessions, and generated sessions.
func resumeFixtures(t *testing.T) []resumeFixture {
	t.Helper()
	all := []resumeFixture{
		{claudecode.Name, "generated", packgen.ClaudeSession(40 << 10)},
		{claudecode.Name, "generated-varied", packgen.ClaudeSessionVaried(40 << 10)},
		{codex.Name, "generated", packgen.CodexSession(60 << 10)},
	}
	shared, err := sharedtest.Path()
	if err != nil {
		t.Logf("the shared sessions are not cut: %v", err)
	}
	own := sharedtest.FixtureDirs("..", formats.Formats())
	for format, dirs := range map[string][]string{
		claudecode.Name: {own[claudecode.Name], filepath.Join(shared, "agent-logs", "claude-code")},
		codex.Name:      {own[codex.Name], filepath.Join(shared, "agent-logs", "codex-cli")},
	} {
		for i, dir := range dirs {
			if shared == "" && i > 0 {
				continue
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, resumeFixture{format, f, data})
			}
		}
	}
	return all
}

// TestResumeEveryLine imports every Claude Code fixture cut after each of
// its lines with a checkpoint, then whole from that checkpoint: the same
// bytes as a full import, and the checkpoint was used.
func TestResumeEveryLine(t *testing.T) {
	t.Parallel()
	for _, fx := range resumeFixtures(t) {
		t.Run(fx.format+"/"+filepath.Base(fx.name), func(t *testing.T) {
			t.Parallel()
			data := fx.data
			opts := importer.Options{Name: filepath.Base(fx.name)}
			full := importWith(fx.format, data, opts)
			ends := importtest.LineEnds(data)
			if len(ends) > 60 && testing.Short() {
				ends = ends[len(ends)-60:]
			}
			for _, n := range ends {
				opts.Checkpoint = filepath.Join(t.TempDir(), "c.ckpt")
				first := importWith(fx.format, data[:n], opts)
				_, written := os.Stat(opts.Checkpoint)
				got := importWith(fx.format, data, opts)
				sameImport(t, "cut after byte "+strconv.Itoa(n), got, full)
				// A checkpoint is written by an import that succeeds.
				if first.Err == "" && full.Err == "" && got.Rep.Resumed == 0 && importer.ResumePoint(data[:n]) > 0 {
					t.Fatalf("cut after byte %d: the checkpoint was not used", n)
				}
				if (written == nil) != (first.Err == "" && importer.ResumePoint(data[:n]) > 0) {
					t.Fatalf("cut after byte %d: import error %q, checkpoint: %v", n, first.Err, written)
				}
			}
		})
	}
}

// TestResumeGrowing follows a session as the Stop hook does: packed after
// every few lines, each import resuming from the last one's checkpoint,
// with a line cut short on the way (a transcript copied while written).
func TestResumeGrowing(t *testing.T) {
	t.Parallel()
	for _, fx := range resumeFixtures(t) {
		t.Run(fx.format+"/"+filepath.Base(fx.name), func(t *testing.T) {
			t.Parallel()
			data, format := fx.data, fx.format
			opts := importer.Options{Checkpoint: filepath.Join(t.TempDir(), "c.ckpt")}
			ends := importtest.LineEnds(data)
			for i := 3; i < len(ends); i += 3 {
				n := ends[i]
				if i%2 == 0 && n+10 < len(data) {
					n += 10 // inside the next line
				}
				sameImport(t, "grown to byte "+strconv.Itoa(n), importWith(format, data[:n], opts), importWith(format, data[:n], importer.Options{}))
			}
			sameImport(t, "whole", importWith(format, data, opts), importWith(format, data, importer.Options{}))
		})
	}
}

// TestResumeChangedPrefix: a transcript whose covered lines changed (a
// rewrite), one cut before the checkpoint's end (a truncation), and
// another file at the same path are read from their start.
func TestResumeChangedPrefix(t *testing.T) {
	t.Parallel()
	data := packgen.ClaudeSession(40 << 10)
	ends := importtest.LineEnds(data)
	half := ends[len(ends)/2]
	cases := map[string][]byte{
		"rewritten": bytes.Replace(data, []byte("internal/api"), []byte("internal/APi"), 1),
		"truncated": data[:ends[len(ends)/4]],
		"other":     packgen.ClaudeSession(20 << 10),
	}
	for name, changed := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opts := importer.Options{Checkpoint: filepath.Join(t.TempDir(), "c.ckpt")}
			if first := importWith(claudecode.Name, data[:half], opts); first.Err != "" {
				t.Fatal(first.Err)
			}
			if _, err := os.Stat(opts.Checkpoint); err != nil {
				t.Fatalf("no checkpoint written: %v", err)
			}
			got := importWith(claudecode.Name, changed, opts)
			sameImport(t, name, got, importWith(claudecode.Name, changed, importer.Options{}))
			if got.Rep.Resumed != 0 {
				t.Errorf("resumed %d lines of a changed transcript", got.Rep.Resumed)
			}
			// The checkpoint is the changed transcript's now.
			again := importWith(claudecode.Name, changed, opts)
			if again.Rep.Resumed == 0 {
				t.Error("the changed transcript's own checkpoint was not resumed")
			}
			sameImport(t, name+" again", again, got)
		})
	}
}

// TestResumeKey: a checkpoint is resumed only by an import whose options
// read lines the same way.
func TestResumeKey(t *testing.T) {
	t.Parallel()
	data := packgen.ClaudeSession(20 << 10)
	ends := importtest.LineEnds(data)
	ck := filepath.Join(t.TempDir(), "c.ckpt")
	for _, opts := range []importer.Options{
		{Checkpoint: ck, Deterministic: []string{"Bash"}},
		{Checkpoint: ck, Subagents: []importer.File{{Name: "subagents/agent-a.jsonl", Data: data[:ends[2]]}}},
		{Checkpoint: ck, Subagents: []importer.File{{Name: "subagents/agent-a.jsonl", Data: data[:ends[3]]}}},
	} {
		importWith(claudecode.Name, data[:ends[len(ends)/2]], importer.Options{Checkpoint: ck})
		got := importWith(claudecode.Name, data, opts)
		if got.Rep.Resumed != 0 {
			t.Errorf("options %+v resumed a checkpoint made with others", opts)
		}
		full := opts
		full.Checkpoint = ""
		sameImport(t, "other options", got, importWith(claudecode.Name, data, full))
	}
	// With subagent transcripts, the session's own lines still resume.
	subs := []importer.File{{Name: "subagents/agent-a.jsonl", Data: data[:ends[2]]}}
	importWith(claudecode.Name, data[:ends[len(ends)/2]], importer.Options{Checkpoint: ck, Subagents: subs})
	got := importWith(claudecode.Name, data, importer.Options{Checkpoint: ck, Subagents: subs})
	if got.Rep.Resumed == 0 {
		t.Error("the session's lines were read again though its subagents' did not change")
	}
	sameImport(t, "with subagents", got, importWith(claudecode.Name, data, importer.Options{Subagents: subs}))
}

// TestResumeDamaged: a checkpoint that is cut short, altered or not one
// at all is not resumed, and the import is a full one.
func TestResumeDamaged(t *testing.T) {
	t.Parallel()
	data := packgen.ClaudeSession(20 << 10)
	ends := importtest.LineEnds(data)
	full := importWith(claudecode.Name, data, importer.Options{})
	for name, damage := range map[string]func([]byte) []byte{
		"cut":     func(b []byte) []byte { return b[:len(b)*2/3] },
		"flipped": func(b []byte) []byte { b[len(b)-5] ^= 0x20; return b },
		"header":  func(b []byte) []byte { return bytes.Replace(b, []byte(`"length":`), []byte(`"length":1`), 1) },
		"empty":   func([]byte) []byte { return nil },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opts := importer.Options{Checkpoint: filepath.Join(t.TempDir(), "c.ckpt")}
			importWith(claudecode.Name, data[:ends[len(ends)/2]], opts)
			b, err := os.ReadFile(opts.Checkpoint)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(opts.Checkpoint, damage(b), 0o600); err != nil {
				t.Fatal(err)
			}
			got := importWith(claudecode.Name, data, opts)
			if got.Rep.Resumed != 0 {
				t.Errorf("resumed from a damaged checkpoint")
			}
			sameImport(t, name, got, full)
		})
	}
}

// TestPruneCheckpoints keeps the newest maxCheckpoints.
func TestPruneCheckpoints(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := packgen.ClaudeSession(8 << 10)
	for i := range importer.MaxCheckpoints + 3 {
		opts := importer.Options{Checkpoint: importer.CheckpointFile(dir, "/s/"+strconv.Itoa(i)+".jsonl")}
		if r := importWith(claudecode.Name, data, opts); r.Err != "" {
			t.Fatal(r.Err)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != importer.MaxCheckpoints {
		t.Errorf("%d checkpoints kept, want %d", len(ents), importer.MaxCheckpoints)
	}
	if importer.CheckpointFile(dir, "/a") == importer.CheckpointFile(dir, "/b") || !strings.HasPrefix(importer.CheckpointFile(dir, "/a"), dir) {
		t.Error("CheckpointFile does not name one file per transcript in dir")
	}
}

// TestPrunePriors: the prior files beside checkpoints (PriorFile) go
// with them, as do those left without one and temporary files over an
// hour old; a temporary file being written stays.
func TestPrunePriors(t *testing.T) {
	dir := t.TempDir()
	data := packgen.ClaudeSession(8 << 10)
	old := time.Now().Add(-2 * time.Hour)
	touch := func(name string, at time.Time) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	touch("0123456789abcdef0123456789abcdef.steps", time.Now()) // no checkpoint
	touch(".0123.ckpt-1", old)
	touch(".0123.steps-2", old)
	touch(".0123.steps-3", time.Now())
	var first string
	for i := range importer.MaxCheckpoints + 2 {
		opts := importer.Options{Checkpoint: importer.CheckpointFile(dir, "/s/"+strconv.Itoa(i)+".jsonl")}
		if i == 0 {
			first = opts.Checkpoint // the least recently written
		}
		prior, _ := importer.PriorFile(opts.Checkpoint)
		touch(filepath.Base(prior), time.Now())
		if r := importWith(claudecode.Name, data, opts); r.Err != "" {
			t.Fatal(r.Err)
		}
	}
	left := map[string]bool{}
	ents, _ := os.ReadDir(dir)
	var ckpts, priors int
	for _, e := range ents {
		left[e.Name()] = true
		switch filepath.Ext(e.Name()) {
		case ".ckpt":
			ckpts++
		case ".steps":
			priors++
			if !fileExists(filepath.Join(dir, strings.TrimSuffix(e.Name(), ".steps")+".ckpt")) {
				t.Errorf("%s is left without its checkpoint", e.Name())
			}
		}
	}
	if ckpts != importer.MaxCheckpoints || priors != importer.MaxCheckpoints {
		t.Errorf("%d checkpoints and %d prior files kept, want %d of each", ckpts, priors, importer.MaxCheckpoints)
	}
	if firstPrior, _ := importer.PriorFile(first); left[filepath.Base(firstPrior)] {
		t.Error("the prior file of a pruned checkpoint is left")
	}
	if left[".0123.ckpt-1"] || left[".0123.steps-2"] || !left[".0123.steps-3"] {
		t.Errorf("temporary files: %v", left)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// FuzzResume: whatever a transcript holds and wherever the first import
// stopped, resuming gives what a full import gives, for both formats.
func FuzzResume(f *testing.F) {
	own := sharedtest.FixtureDirs("..", formats.Formats())
	files, _ := filepath.Glob(filepath.Join(own[claudecode.Name], "*.jsonl"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil && len(data) < 16<<10 {
			f.Add(data, uint16(len(data)/2))
		}
	}
	f.Add(packgen.ClaudeSession(4<<10), uint16(1000))
	rollouts, _ := filepath.Glob(filepath.Join(own[codex.Name], "*.jsonl"))
	for _, name := range rollouts {
		if data, err := os.ReadFile(name); err == nil && len(data) < 16<<10 {
			f.Add(data, uint16(len(data)/2+1))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, at uint16) {
		n := int(at) % (len(data) + 1)
		// The odd cuts read it as a Codex rollout.
		format := []string{claudecode.Name, codex.Name}[at%2]
		opts := importer.Options{Checkpoint: filepath.Join(t.TempDir(), "c.ckpt")}
		importWith(format, data[:n], opts)
		sameImport(t, "resumed", importWith(format, data, opts), importWith(format, data, importer.Options{}))
	})
}

// TestResumePack: a resumed import packs to the pack a full import makes,
// whether the objects its checkpoint names are in the store (found by
// name) or not (stored as any text), on every fixture cut in two.
func TestResumePack(t *testing.T) {
	t.Parallel()
	for _, fx := range resumeFixtures(t) {
		t.Run(fx.format+"/"+filepath.Base(fx.name), func(t *testing.T) {
			t.Parallel()
			data := fx.data
			want := packDirect(newStore(t), fx.format, data, importer.Options{}, execlog.Options{})
			ends := importtest.LineEnds(data)
			if len(ends) < 2 {
				t.Skip("one line")
			}
			opts := importer.Options{Checkpoint: filepath.Join(t.TempDir(), "c.ckpt")}
			half := ends[len(ends)/2]
			full := newStore(t)
			if r := packDirect(full, fx.format, data[:half], opts, execlog.Options{}); r.Err != nil && want.Err == nil {
				// A prefix may not import (no record of the kinds it needs yet).
				t.Logf("the first half does not import: %v", r.Err)
			}
			// The objects are in full: found by their names.
			got := packDirect(full, fx.format, data, opts, execlog.Options{})
			if d := same(got, want); d != "" {
				t.Fatalf("resumed into the store that holds the objects: %s", d)
			}
			stored(t, full, got)
			// Into an empty store: stored.
			importWith(fx.format, data[:half], opts)
			empty := newStore(t)
			got = packDirect(empty, fx.format, data, opts, execlog.Options{})
			if d := same(got, want); d != "" {
				t.Fatalf("resumed into an empty store: %s", d)
			}
			stored(t, empty, got)
		})
	}
}

// stored fails unless every object p references is in s, whole.
func stored(t *testing.T, s *store.Store, p packed) {
	t.Helper()
	for _, d := range p.Objects {
		if _, err := s.Get(d); err != nil {
			t.Fatalf("the pack's object %s: %v", d, err)
		}
	}
}

// TestResumeLinkedCheckpoint: a checkpoint that is a link out of its
// directory is not read.
func TestResumeLinkedCheckpoint(t *testing.T) {
	t.Parallel()
	data := packgen.ClaudeSession(20 << 10)
	ends := importtest.LineEnds(data)
	opts := importer.Options{Checkpoint: filepath.Join(t.TempDir(), "c.ckpt")}
	importWith(claudecode.Name, data[:ends[len(ends)/2]], opts)
	elsewhere := filepath.Join(t.TempDir(), "c.ckpt")
	if err := os.Rename(opts.Checkpoint, elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, opts.Checkpoint); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	got := importWith(claudecode.Name, data, opts)
	if got.Rep.Resumed != 0 {
		t.Error("resumed from a checkpoint linked out of its directory")
	}
	sameImport(t, "linked", got, importWith(claudecode.Name, data, importer.Options{}))
}

// TestResumeTrustsNamedObjects: what a checkpoint names is found by name
// and size, not read back: with one of those objects damaged in place
// (same size), a resumed pack goes through, where a full one, which
// compares the bytes, refuses the store's object; ctx-verify --store is
// what checks every object's bytes.
func TestResumeTrustsNamedObjects(t *testing.T) {
	t.Parallel()
	data := packgen.ClaudeSessionVaried(40 << 10)
	ends := importtest.LineEnds(data)
	s := newStore(t)
	opts := importer.Options{Checkpoint: filepath.Join(t.TempDir(), "c.ckpt")}
	first := packDirect(s, claudecode.Name, data[:ends[len(ends)/2]], opts, execlog.Options{})
	if first.Err != nil {
		t.Fatal(first.Err)
	}
	// The largest object is a tool output of the covered lines.
	var big digest.Digest
	var most int64
	for _, d := range first.Objects {
		if fi, err := os.Stat(s.ObjectPath(d)); err == nil && fi.Size() > most {
			big, most = d, fi.Size()
		}
	}
	b, err := os.ReadFile(s.ObjectPath(big))
	if err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x20
	os.Chmod(s.ObjectPath(big), 0o644)
	if err := os.WriteFile(s.ObjectPath(big), b, 0o444); err != nil {
		t.Fatal(err)
	}
	if got := packDirect(s, claudecode.Name, data, opts, execlog.Options{}); got.Err != nil {
		t.Fatalf("resumed pack: %v", got.Err)
	}
	if got := packDirect(s, claudecode.Name, data, importer.Options{}, execlog.Options{}); got.Err == nil || !strings.Contains(got.Err.Error(), "other bytes") {
		t.Fatalf("full pack over a damaged object: %v, want it refused", got.Err)
	}
}

// An import that resumes from a checkpoint gives the bytes and the report
// of a full import of the same input, whatever the checkpoint covered.

// imported is one import's outcome.
type imported = importtest.Imported[importer.Report]

func importWith(format string, data []byte, opts importer.Options) imported {
	return importtest.ImportedOf(formats.Import(format, data, opts))
}

// sameImport fails unless got is want, a resumed import being reported as one.
func sameImport(t *testing.T, what string, got, want imported) {
	t.Helper()
	importtest.SameImport(t, what, got, want, func(r *importer.Report) { r.Resumed = 0 })
}
