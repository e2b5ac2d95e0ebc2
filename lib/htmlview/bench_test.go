package htmlview

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/internal/testsys"
	"github.com/ctx-tools/ctx/lib/drift"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// benchPacks commits the diff workload: two packs of n steps whose outputs
// differ in every 10th step (lib/drift's benchmark and
// scripts/bench-diff.sh use the same).
func benchPacks(b *testing.B, n int) (*fixture, *manifest.Manifest, *manifest.Manifest) {
	f := newFixture(b)
	ma, mb := f.sample(), f.sample()
	ma.Steps, mb.Steps = nil, nil
	tools := []string{"read_file", "grep", "list_dir", "run_tests"}
	for i := 0; i < n; i++ {
		params := jsontext.Value(fmt.Sprintf(`{"path":"src/pkg%d/file%d.go"}`, i%97, i))
		out := fmt.Sprintf("step %d\npackage pkg%d\n\nfunc F%d() int { return %d }\n", i, i%97, i, i)
		sa := manifest.Step{Index: i, Type: manifest.ToolCall, Tool: tools[i%len(tools)], Parameters: params,
			OutputRef: f.put(out), Deterministic: true, Timestamp: "2026-02-10T09:00:00Z"}
		sb := sa
		if i%10 == 0 {
			sb.OutputRef = f.put(out + "// changed\n")
		}
		ma.Steps = append(ma.Steps, sa)
		mb.Steps = append(mb.Steps, sb)
	}
	return f, f.pack(ma), f.pack(mb)
}

func benchDiffPage(b *testing.B, al drift.Alignment) {
	f, ma, mb := benchPacks(b, 10000)
	r, err := drift.Diff(ma, mb, drift.StoreObjects(f.s), drift.Options{Align: al})
	if err != nil {
		b.Fatal(err)
	}
	if len(r.Drift) != 1000 {
		b.Fatalf("%d entries", len(r.Drift))
	}
	var n int
	b.ResetTimer()
	start := testsys.CPUTime()
	for b.Loop() {
		page, err := Diff(ma, mb, r, al, Options{})
		if err != nil {
			b.Fatal(err)
		}
		n = len(page)
	}
	report(b, start, n)
}

// BenchmarkDiffPage renders the diff page of two 10,000-step packs whose
// outputs differ in every 10th step (1,000 entries with diffs); the
// report is computed once, outside the loop.
func BenchmarkDiffPage(b *testing.B) { benchDiffPage(b, drift.AlignIndex) }

// BenchmarkDiffPageLCS is BenchmarkDiffPage aligned with --align lcs.
func BenchmarkDiffPageLCS(b *testing.B) { benchDiffPage(b, drift.AlignLCS) }

// session commits a 300-step session as an agent would record it: file
// reads of 1–6 KiB, searches, model calls with a paragraph of text, and
// edits with their content in the parameters.
func session(b *testing.B, n int) (*fixture, *manifest.Manifest) {
	f := newFixture(b)
	m := f.sample()
	m.Steps = nil
	for i := 0; i < n; i++ {
		ts := fmt.Sprintf("2026-02-10T09:%02d:%02dZ", i/60%60, i%60)
		var st manifest.Step
		switch i % 4 {
		case 0:
			var src strings.Builder
			for l := 0; l < 40+(i*7)%120; l++ {
				fmt.Fprintf(&src, "\tx%d := compute(%d, %q) // line %d\n", l, l*i, "value", l)
			}
			st = f.step(i, manifest.ToolCall, "Read", fmt.Sprintf(`{"file_path":"/repo/src/pkg%d/file%d.go"}`, i%13, i), src.String(), true, ts)
		case 1:
			st = f.step(i, manifest.ToolCall, "Grep", fmt.Sprintf(`{"pattern":"compute\\(%d","path":"/repo"}`, i), fmt.Sprintf("src/pkg%d/file%d.go:12:\tx := compute(%d)\n", i%13, i, i), true, ts)
		case 2:
			st = f.step(i, manifest.LLMCall, "claude-sonnet-4", `{"max_tokens":4096}`, strings.Repeat(fmt.Sprintf("Step %d: the function returns the wrong total when the list is empty, so I will add a guard. ", i), 6), false, ts)
		case 3:
			edit := fmt.Sprintf(`{"file_path":"/repo/src/pkg%d/file%d.go","new_string":%q,"old_string":%q}`, i%13, i, strings.Repeat("if len(xs) == 0 {\n\treturn 0\n}\n", 3), "return sum(xs)")
			st = f.step(i, manifest.ToolCall, "Edit", edit, "The file has been updated.", false, ts)
		}
		m.Steps = append(m.Steps, st)
	}
	return f, f.pack(m)
}

// BenchmarkPackPage renders the page of a 300-step session, reading every
// object from the store (verified) as ctx-show --html does.
func BenchmarkPackPage(b *testing.B) {
	f, m := session(b, 300)
	var n int
	b.ResetTimer()
	start := testsys.CPUTime()
	for b.Loop() {
		page, err := Pack(m, f.s, Options{})
		if err != nil {
			b.Fatal(err)
		}
		n = len(page)
	}
	report(b, start, n)
}

// report adds the page size and the CPU time per page (user and system,
// all threads, the garbage collector's included): on a shared machine
// wall time also measures the neighbours.
func report(b *testing.B, start time.Duration, size int) {
	b.ReportMetric(float64(size)/1e6, "MB")
	if used := testsys.CPUTime() - start; used > 0 {
		b.ReportMetric(float64(used.Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}
