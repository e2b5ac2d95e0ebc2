package drift

import (
	"fmt"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/manifest"
)

// benchPacks commits two packs of n steps whose outputs differ in every
// 10th step, and returns their digests' manifests as loaded from the store.
func benchPacks(b *testing.B, n int) (*fixture, *manifest.Manifest, *manifest.Manifest) {
	return benchPacksParams(b, n, false)
}

// benchPacksParams is benchPacks; with otherParams every step of B also
// has parameters no step of A has.
func benchPacksParams(b *testing.B, n int, otherParams bool) (*fixture, *manifest.Manifest, *manifest.Manifest) {
	b.Helper()
	f := newFixture(b)
	ma, mb := f.base(), f.base()
	ma.Steps, mb.Steps = nil, nil
	tools := []string{"read_file", "grep", "list_dir", "run_tests"}
	for i := 0; i < n; i++ {
		params := jsontext.Value(fmt.Sprintf(`{"path":"src/pkg%d/file%d.go"}`, i%97, i))
		out := fmt.Sprintf("step %d\npackage pkg%d\n\nfunc F%d() int { return %d }\n", i, i%97, i, i)
		sa := manifest.Step{Index: i, Type: manifest.ToolCall, Tool: tools[i%len(tools)], Parameters: params,
			OutputRef: f.put(out), Deterministic: true, Timestamp: "2026-02-10T09:00:00Z"}
		sb := sa
		if otherParams {
			sb.Parameters = jsontext.Value(fmt.Sprintf(`{"path":"lib/file%d.go"}`, i))
		}
		if i%10 == 0 {
			sb.OutputRef = f.put(out + "// changed\n")
		}
		ma.Steps = append(ma.Steps, sa)
		mb.Steps = append(mb.Steps, sb)
	}
	return f, f.pack(ma), f.pack(mb)
}

func benchDiff(b *testing.B, opt Options) {
	f, ma, mb := benchPacks(b, 10000)
	objs := StoreObjects(f.s)
	b.ResetTimer()
	for b.Loop() {
		r, err := Diff(ma, mb, objs, opt)
		if err != nil {
			b.Fatal(err)
		}
		if r.Summary[ToolOutputDrift] != 1000 || len(r.Drift) != 1000 {
			b.Fatalf("summary %v", r.Summary)
		}
	}
}

// BenchmarkDiffIndex: two 10,000-step packs, every 10th step output
// differs; aligned by index. Manifests already loaded.
func BenchmarkDiffIndex(b *testing.B) { benchDiff(b, Options{}) }

// BenchmarkDiffLCS: the same pair with --align lcs.
func BenchmarkDiffLCS(b *testing.B) { benchDiff(b, Options{Align: AlignLCS}) }

// BenchmarkDiffLCSAllDiffer: --align lcs where no step of B has the
// parameters of any step of A, so no two steps match: the exact search
// gives up at its bound, no unique anchor exists, and the steps are
// paired by tool instead, every one with a param_drift.
func BenchmarkDiffLCSAllDiffer(b *testing.B) {
	f, ma, mb := benchPacksParams(b, 10000, true)
	objs := StoreObjects(f.s)
	b.ResetTimer()
	for b.Loop() {
		r, err := Diff(ma, mb, objs, Options{Align: AlignLCS})
		if err != nil {
			b.Fatal(err)
		}
		if r.Summary[ParamDrift] != 10000 || r.Summary[ToolDrift] != 0 {
			b.Fatalf("summary %v", r.Summary)
		}
	}
}

// BenchmarkDiffLoadIndex adds what ctx-diff does around the comparison:
// loading and verifying both manifests (side by side, as ctx-diff does
// when both are named), and encoding the report.
func BenchmarkDiffLoadIndex(b *testing.B) {
	f, ma, mb := benchPacks(b, 10000)
	objs := StoreObjects(f.s)
	b.ResetTimer()
	for b.Loop() {
		var a *manifest.Manifest
		var errA error
		done := make(chan struct{})
		go func() {
			defer close(done)
			a, errA = manifest.Load(f.s, ma.Hash)
		}()
		bm, err := manifest.Load(f.s, mb.Hash)
		<-done
		if err != nil || errA != nil {
			b.Fatal(err, errA)
		}
		r, err := Diff(a, bm, objs, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.JSON(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAlignShifted aligns 10,000 distinct steps against the same with
// every 10th replaced, which the exact search cannot finish within its
// bound: the anchored path.
func BenchmarkAlignShifted(b *testing.B) {
	x := make([]int, 10000)
	y := make([]int, 10000)
	for i := range x {
		x[i], y[i] = i, i
		if i%10 == 0 {
			y[i] = -i
		}
	}
	for b.Loop() {
		Align(x, y)
	}
}

// BenchmarkAlignWorst aligns two 10,000-element sequences with no unique
// elements and no common structure: the exact search fails and the
// anchors find nothing, the work the budget bounds.
func BenchmarkAlignWorst(b *testing.B) {
	x := make([]int, 10000)
	y := make([]int, 10000)
	for i := range x {
		x[i] = i % 2
		y[i] = i / 5000
	}
	for b.Loop() {
		Align(x, y)
	}
}

// BenchmarkLoadManifest is one manifest.Load of a 10,000-step pack (read,
// verify, strict parse): the part of ctx-diff's time that precedes the
// comparison, twice.
func BenchmarkLoadManifest(b *testing.B) {
	f, ma, _ := benchPacks(b, 10000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := manifest.Load(f.s, ma.Hash); err != nil {
			b.Fatal(err)
		}
	}
}
