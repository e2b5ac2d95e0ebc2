package formats_test

import (
	"bytes"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/halves"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// A transcript packed again as it grows, each pack taking the steps its
// last pack holds (Options.Prior), gives at every step the pack a fresh
// import packs.

// packPrior packs data as ctx-pack does after every reply: resuming from
// the checkpoint, taking the steps the last pack (prior) holds, and
// leaving the prior of this pack for the next. It returns the pack and
// how many steps were taken.
func packPrior(s *store.Store, format string, data []byte, ckpt string) (packed, int) {
	file, key := importer.PriorFile(ckpt)
	opts := importer.Options{Checkpoint: ckpt, Prior: execlog.LoadPrior(s, file, key)}
	l, rep, err := formats.ImportLog(format, data, opts)
	if err != nil {
		return packed{Err: err}, 0
	}
	if err := l.Check(execlog.Options{}); err != nil {
		return packed{Err: err}, 0
	}
	if err := l.CheckStore(s); err != nil {
		return packed{Err: err}, 0
	}
	m, _, err := l.Pack(s)
	if err != nil {
		return packed{Err: err}, 0
	}
	if err := l.SavePrior(file, key); err != nil {
		return packed{Err: err}, 0
	}
	b, err := s.Get(m.Hash)
	if err != nil {
		return packed{Err: err}, 0
	}
	// The steps taken are not among m's slots: the refs are read back.
	stored, err := manifest.Parse(b)
	if err != nil {
		return packed{Err: err}, 0
	}
	refs := stored.Refs()
	slices.SortFunc(refs, func(a, b digest.Digest) int { return strings.Compare(a.String(), b.String()) })
	return packed{Manifest: b, Objects: slices.Compact(refs), Warnings: l.Warnings}, rep.Reused
}

// cuts returns up to n line ends of data, spread over it, the last one
// always.
func cuts(data []byte, n int) []int {
	ends := importtest.LineEnds(data)
	if len(ends) <= n {
		return ends
	}
	var out []int
	for i := 1; i <= n; i++ {
		out = append(out, ends[i*len(ends)/n-1])
	}
	return out
}

func TestPriorGrowing(t *testing.T) {
	t.Parallel()
	for _, fx := range resumeFixtures(t) {
		t.Run(fx.format+"/"+filepath.Base(fx.name), func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			ckpt := filepath.Join(t.TempDir(), "c.ckpt")
			reused := 0
			for _, end := range cuts(fx.data, 40) {
				got, n := packPrior(s, fx.format, fx.data[:end], ckpt)
				want := packDirect(newStore(t), fx.format, fx.data[:end], importer.Options{}, execlog.Options{})
				if d := same(got, want); d != "" {
					t.Fatalf("the first %d bytes, packed after the pack of fewer: %s", end, d)
				}
				reused += n
			}
			if reused == 0 && len(importtest.LineEnds(fx.data)) > 4 {
				t.Error("no pack took a step from the one before it")
			}
		})
	}
}

// TestPriorChanged: a transcript whose lines changed (a compaction, an
// edited tool output) or that was replaced takes only the steps that are
// what they were.
func TestPriorChanged(t *testing.T) {
	t.Parallel()
	data := packgen.ClaudeSessionVaried(60 << 10)
	ends := importtest.LineEnds(data)
	mid := ends[len(ends)/2]
	changed := bytes.Clone(data)
	i := bytes.Index(changed[mid:], []byte("handler revision"))
	if i < 0 {
		t.Fatal("the generated session has no tool output to change")
	}
	copy(changed[mid+i:], "HANDLER")
	for _, c := range []struct {
		name         string
		first, again []byte
	}{
		{"a tool output changed", data, changed},
		{"lines removed", data, append(bytes.Clone(data[:ends[3]]), data[mid:]...)},
		{"truncated", data, data[:mid]},
		{"another session", packgen.ClaudeSession(30 << 10), data},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			ckpt := filepath.Join(t.TempDir(), "c.ckpt")
			if p, _ := packPrior(s, claudecode.Name, c.first, ckpt); p.Err != nil {
				t.Fatal(p.Err)
			}
			got, _ := packPrior(s, claudecode.Name, c.again, ckpt)
			want := packDirect(newStore(t), claudecode.Name, c.again, importer.Options{}, execlog.Options{})
			if d := same(got, want); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// TestLogStepsAtOnce: a session's steps made in two halves at once (more
// than 512 steps, two CPUs), and a Codex session's messages' metadata and
// usage too, are those made one after the other, with and without a
// checkpoint's memo (which both halves write).
func TestLogStepsAtOnce(t *testing.T) {
	for _, c := range []struct {
		format string
		data   []byte
	}{
		{claudecode.Name, packgen.ClaudeSessionVaried(3500 << 10)},
		// Enough turns for its messages' metadata and usage to be made
		// in halves too (importer.ItemReader.Done, importer.TakeUsages).
		{codex.Name, packgen.CodexSession(3500 << 10)},
	} {
		data := c.data
		ends := importtest.LineEnds(data)
		ckpt := filepath.Join(t.TempDir(), "c.ckpt")
		importWith(c.format, data[:ends[len(ends)/2]], importer.Options{Checkpoint: ckpt})
		prev := runtime.GOMAXPROCS(1)
		one := importWith(c.format, data, importer.Options{})
		runtime.GOMAXPROCS(max(prev, 2))
		if l, err := execlog.Parse(one.Out, execlog.Options{}); err != nil || len(l.Steps) < 2*halves.MinEach {
			runtime.GOMAXPROCS(prev)
			t.Fatalf("%s: %v, or too few steps to be made in halves", c.format, err)
		}
		sameImport(t, c.format+" in halves", importWith(c.format, data, importer.Options{}), one)
		resumed := importWith(c.format, data, importer.Options{Checkpoint: ckpt})
		runtime.GOMAXPROCS(prev)
		if resumed.Rep.Resumed == 0 {
			t.Fatalf("%s: the checkpoint was not used", c.format)
		}
		sameImport(t, c.format+" in halves, resumed", resumed, one)
	}
}
