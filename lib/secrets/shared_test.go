package secrets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// importShared packs one shared real session into st.
func importShared(t testing.TB, st *store.Store, path string) *manifest.Manifest {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	format, err := formats.Choose(importer.Auto, path, data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if format != importer.Ctx {
		if data, _, err = formats.Import(format, data, importer.Options{Name: filepath.Base(path)}); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	l, err := execlog.Parse(data, execlog.Options{Dir: filepath.Dir(path)})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	m, _, err := l.Pack(st)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSharedSessions counts false positives: the shared real sessions (8
// formats) hold no live secret, so every finding in them would be one.
// There are none (docs/performance.md states it).
func TestSharedSessions(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Dir(t, "agent-logs")
	st, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sc := newScanner(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".md") {
			continue
		}
		m := importShared(t, st, f)
		found, stats, err := sc.ScanPack(st, m, nil)
		if err != nil {
			t.Fatal(err)
		}
		n++
		for _, fd := range found {
			t.Errorf("%s: false positive: %s", filepath.Base(f), fd)
		}
		t.Logf("%s: %d objects, %d bytes, %d findings", filepath.Base(f), stats.Objects, stats.Bytes, len(found))
	}
	if n < 20 {
		t.Errorf("scanned %d shared sessions, want the 25 of 8 formats", n)
	}
}

// session3MB packs a real Claude Code session grown to a 3 MB transcript:
// its records repeated, each copy with its own ids and its text told
// apart ("[copy N] "), so that no object is shared between copies.
func session3MB(b *testing.B, st *store.Store) (*manifest.Manifest, int) {
	dir := sharedtest.Dir(b, "agent-logs")
	data, err := os.ReadFile(filepath.Join(dir, "claude-code", "spotter-tool-heavy.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	var grown strings.Builder
	for c := 0; grown.Len() < 3<<20; c++ {
		k := fmt.Sprintf("c%d-", c)
		grown.WriteString(strings.NewReplacer(
			`"uuid":"`, `"uuid":"`+k, `"parentUuid":"`, `"parentUuid":"`+k,
			`"toolu_`, `"toolu_`+k, `"tool_use_id":"`, `"tool_use_id":"`+k,
			`"content":"`, `"content":"[copy `+k+`] `, `"text":"`, `"text":"[copy `+k+`] `,
		).Replace(string(data)))
	}
	logJSON, _, err := formats.Import(claudecode.Name, []byte(grown.String()), importer.Options{Name: "s.jsonl"})
	if err != nil {
		b.Fatal(err)
	}
	l, err := execlog.Parse(logJSON, execlog.Options{})
	if err != nil {
		b.Fatal(err)
	}
	m, _, err := l.Pack(st)
	if err != nil {
		b.Fatal(err)
	}
	return m, grown.Len()
}

// BenchmarkScanSession3MB scans every object of a 3 MB real session, as
// ctx-push and ctx-redact --check do the first time (no cache); the
// scanner's rules are compiled once, before the timer, as a process
// does once.
func BenchmarkScanSession3MB(b *testing.B) {
	st, _, err := store.Init(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	m, size := session3MB(b, st)
	sc := newScanner(b)
	var bytes int64
	cpu0 := cpuTime()
	for b.Loop() {
		_, stats, err := sc.ScanPack(st, m, nil)
		if err != nil {
			b.Fatal(err)
		}
		bytes = stats.Bytes
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(size)/(1<<20), "MiB-session")
	b.ReportMetric(float64(bytes)/(1<<20), "MiB-scanned")
}

// BenchmarkCompileRules is what a ctx-redact process pays once before
// its first scan.
func BenchmarkCompileRules(b *testing.B) {
	for b.Loop() {
		s, _ := New(nil)
		if err := s.init(); err != nil {
			b.Fatal(err)
		}
	}
}
