package claudecode_test

import (
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/internal/testsys"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// claudeSession is packgen.ClaudeSession: a generated Claude Code
// transcript of at least size bytes.
func claudeSession(size int) []byte { return packgen.ClaudeSession(size) }

var (
	benchOnce sync.Once
	benchData []byte
)

// BenchmarkClaudeCode50MB imports a generated 50 MB Claude Code transcript
// (the target: under one second).
func BenchmarkClaudeCode50MB(b *testing.B) {
	benchOnce.Do(func() { benchData = claudeSession(50 << 20) })
	b.SetBytes(int64(len(benchData)))
	b.ReportAllocs()
	start := testsys.CPUTime()
	for b.Loop() {
		if _, _, err := formats.Import(claudecode.Name, benchData, importer.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time (all threads, GC included) per import: unlike ns/op it
	// does not grow when other processes compete for the cores.
	if used := testsys.CPUTime() - start; used > 0 {
		b.ReportMetric(float64(used.Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}

// TestClaudeSessionGenerator checks the benchmark's input imports as the
// shape it claims, so the benchmark measures real work.
func TestClaudeSessionGenerator(t *testing.T) {
	t.Parallel()
	data := claudeSession(200 << 10)
	out, rep, err := formats.Import(claudecode.Name, data, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := importtest.Decode(t, out)
	turns := rep.Records / 9
	if rep.Records%9 != 0 || rep.Skipped != turns || len(l.Steps) != 5*turns || len(l.Prompts) != turns {
		t.Errorf("report %+v, %d steps, %d prompts", rep, len(l.Steps), len(l.Prompts))
	}
	// Path parameters become relative; the text that mentions paths stays.
	for _, s := range l.Steps {
		if s.Tool == "Read" && !reflect.DeepEqual(s.Parameters, map[string]any{"file_path": "internal/api/routes.go"}) {
			t.Errorf("Read parameters = %v", s.Parameters)
		}
	}
	if !strings.Contains(l.Prompts[0].Content, "/home/dev/projects/service/internal") {
		t.Errorf("prompt = %q", l.Prompts[0].Content)
	}
}
