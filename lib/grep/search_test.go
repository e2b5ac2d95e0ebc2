package grep

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

type fixture struct {
	s     *store.Store
	packs []digest.Digest // newest first, as a listing gives them
	obj   map[string]digest.Digest
}

// newFixture stores two packs that share their system prompt and input:
// pack 1 (older) and pack 2, a session snapshot with a subagent step and
// a binary output.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{s: s, obj: map[string]digest.Digest{}}
	put := func(name, content string) digest.Digest {
		d, _, err := s.Put([]byte(content))
		if err != nil {
			t.Fatal(err)
		}
		f.obj[name] = d
		return d
	}
	system := put("system", "You are a careful engineer.\nNever leak the needle.\n")
	input := put("input", "package main\n\n// needle: here\nfunc main() {}\n")
	pack := func(created string, prompt string, steps []manifest.Step, outputs []manifest.Output, meta string) digest.Digest {
		m := &manifest.Manifest{
			Version: manifest.Version, Created: created,
			Model:        manifest.Model{Identifier: "gpt-4o"},
			SystemPrompt: system,
			Prompts:      []manifest.Prompt{{Role: "user", ContentRef: put("prompt@"+created, prompt)}},
			Inputs:       []manifest.File{{Name: "main.go", ContentRef: input, Size: 44}},
			Steps:        steps, Outputs: outputs,
			Environment: manifest.Environment{OS: "linux"},
		}
		if meta != "" {
			m.Metadata = jsontext.Value(meta)
		}
		d, _, err := manifest.Commit(s, m)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	p1 := pack("2026-02-10T09:00:00Z", "find the needle", []manifest.Step{
		{Index: 0, Type: manifest.ToolCall, Tool: "grep", Parameters: jsontext.Value(`{"pattern":"needle"}`), OutputRef: put("grep-out", "main.go:3:// needle: here\n"), Deterministic: true},
		{Index: 1, Type: manifest.LLMCall, OutputRef: put("answer", "The needle is on line 3.\n"), ReasoningRef: put("reasoning", "grep said line 3; no NEEDLE elsewhere\n")},
	}, []manifest.Output{{Name: "result.md", ContentRef: put("result", "needle found\n"), Size: 13}}, "")
	p2 := pack("2026-02-11T09:00:00Z", "again", []manifest.Step{
		// Metadata is never searched (its needle is no match).
		{Index: 0, Type: manifest.ToolCall, Tool: "grep", Agent: "explorer", Parameters: jsontext.Value(`{"pattern":"needle"}`), OutputRef: f.obj["grep-out"], Deterministic: true,
			Metadata: jsontext.Value(`{"result":{"copy":"main.go:3:// needle: here"}}`)},
		{Index: 1, Type: manifest.ToolCall, Tool: "read_file", Parameters: jsontext.Value(`{"path":"main.go"}`), OutputRef: input, Deterministic: true},
		{Index: 2, Type: manifest.ToolCall, Tool: "env", Parameters: jsontext.Value(`{}`), OutputRef: put("redacted", "TOKEN=[REDACTED:github-pat:3f2a1b]\n"), Deterministic: true},
	}, []manifest.Output{{Name: "logo.bin", ContentRef: put("binary", "\x00\x01needle\x02"), Size: 10}},
		`{"session":{"sessionId":"s-1"}}`)
	f.packs = []digest.Digest{p2, p1}
	return f
}

// hit is one reported line, for comparing.
type hit struct {
	pack  digest.Digest
	place string
	line  int
	text  string
}

func (f *fixture) search(t *testing.T, p Pattern, opt Options) ([]hit, Stats) {
	t.Helper()
	m, err := Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	var hits []hit
	st, err := Search(f.s, f.packs, m, opt, func(r *Result) error {
		if r.Err != nil {
			return r.Err
		}
		for _, pl := range r.Places {
			where := pl.Field.String()
			if pl.Step >= 0 {
				where = fmt.Sprintf("steps[%d].%s", pl.Step, where)
			}
			if pl.Name != "" {
				where += ":" + pl.Name
			}
			if pl.Role != "" {
				where += ":" + pl.Role
			}
			if r.Binary {
				hits = append(hits, hit{pl.Pack, where, 0, "binary"})
				if !canon.IsCanonical(AppendJSON(nil, r, &pl, nil)) {
					t.Errorf("binary line is not canonical JSON")
				}
			}
			if opt.Mode != ModeLines && !r.Binary {
				hits = append(hits, hit{pl.Pack, where, r.Count, ""})
			}
			for _, l := range r.Lines {
				hits = append(hits, hit{pl.Pack, where, l.Number, string(l.Text)})
				if b := AppendJSON(nil, r, &pl, &l); !canon.IsCanonical(b) {
					t.Errorf("not canonical JSON: %s", b)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hits, st
}

func TestSearch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p2, p1 := f.packs[0], f.packs[1]
	hits, st := f.search(t, Pattern{Expr: "needle"}, Options{})
	want := []hit{
		// The system prompt and the input are shared: searched once,
		// reported for both packs.
		{p2, "prompt:system", 2, "Never leak the needle."},
		{p1, "prompt:system", 2, "Never leak the needle."},
		{p2, "input:main.go", 3, "// needle: here"},
		{p2, "steps[1].output", 3, "// needle: here"},
		{p1, "input:main.go", 3, "// needle: here"},
		{p2, "steps[0].output", 1, "main.go:3:// needle: here"},
		{p1, "steps[0].output", 1, "main.go:3:// needle: here"},
		{p2, "steps[0].call", 1, `{"pattern":"needle"}`},
		{p1, "steps[0].call", 1, `{"pattern":"needle"}`},
		{p2, "file:logo.bin", 0, "binary"},
		{p1, "prompt:user", 1, "find the needle"},
		{p1, "steps[1].answer", 1, "The needle is on line 3."},
		{p1, "file:result.md", 1, "needle found"},
	}
	if !reflect.DeepEqual(hits, want) {
		t.Errorf("hits:\n%s\nwant:\n%s", dump(hits), dump(want))
	}
	// system, input, 2 prompts, grep output, answer, reasoning, result,
	// redacted output, binary output: 10 objects, each read once.
	if st.Objects != 10 || st.Packs != 2 {
		t.Errorf("stats %+v, want 10 objects in 2 packs", st)
	}
}

func dump(hs []hit) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "  %s %s %d %q\n", h.pack.Short(), h.place, h.line, h.text)
	}
	return b.String()
}

func TestSearchOptions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p2, p1 := f.packs[0], f.packs[1]
	for _, tc := range []struct {
		name string
		p    Pattern
		opt  Options
		want []hit
	}{
		{"reasoning only, any case", Pattern{Expr: "needle", IgnoreCase: true}, Options{Fields: Reasoning},
			[]hit{{p1, "steps[1].reasoning", 1, "grep said line 3; no NEEDLE elsewhere"}}},
		{"agent", Pattern{Expr: "needle"}, Options{Agent: "explorer"},
			[]hit{{p2, "steps[0].output", 1, "main.go:3:// needle: here"}, {p2, "steps[0].call", 1, `{"pattern":"needle"}`}}},
		{"tool and field", Pattern{Expr: "needle"}, Options{Tool: "read_file", Fields: Output},
			[]hit{{p2, "steps[1].output", 3, "// needle: here"}}},
		{"session", Pattern{Expr: "needle"}, Options{Session: "s-1", Fields: Prompt},
			[]hit{{p2, "prompt:system", 2, "Never leak the needle."}}},
		{"binary skipped", Pattern{Expr: "needle"}, Options{Fields: File, SkipBinary: true},
			[]hit{{p1, "file:result.md", 1, "needle found"}}},
		// A redacted secret is stored as its mark: the mark matches,
		// and what it replaced is not there to match.
		{"redaction mark", Pattern{Expr: "REDACTED", Fixed: true}, Options{},
			[]hit{{p2, "steps[2].output", 1, "TOKEN=[REDACTED:github-pat:3f2a1b]"}}},
		{"count", Pattern{Expr: "e"}, Options{Mode: ModeCount, Fields: Prompt},
			[]hit{{p2, "prompt:system", 2, ""}, {p1, "prompt:system", 2, ""}, {p1, "prompt:user", 1, ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hits, _ := f.search(t, tc.p, tc.opt)
			if !reflect.DeepEqual(hits, tc.want) {
				t.Errorf("hits:\n%s\nwant:\n%s", dump(hits), dump(tc.want))
			}
		})
	}
}

func TestSearchCorrupt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	name := f.s.ObjectPath(f.obj["answer"])
	os.Chmod(name, 0o644)
	if err := os.WriteFile(name, []byte("The needle is elsewhere.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, _ := Compile(Pattern{Expr: "needle"})
	var errs []error
	_, err := Search(f.s, f.packs, m, Options{Fields: Answer}, func(r *Result) error {
		if r.Err != nil {
			errs = append(errs, r.Err)
		} else {
			t.Errorf("a match in a corrupt object: %+v", r)
		}
		return nil
	})
	if err != nil || len(errs) != 1 || !errors.Is(errs[0], store.ErrCorrupt) {
		t.Errorf("Search = %v, reported %v; want one ErrCorrupt", err, errs)
	}
}

func TestSearchStopsAtEmitError(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m, _ := Compile(Pattern{Expr: "needle"})
	stop := errors.New("stop")
	n := 0
	_, err := Search(f.s, f.packs, m, Options{Workers: 2}, func(*Result) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("Search = %v after %d results, want stop after 1", err, n)
	}
}

func TestParseFields(t *testing.T) {
	t.Parallel()
	if f, err := ParseFields(nil); err != nil || f != AllFields {
		t.Errorf("ParseFields(nil) = %v, %v", f, err)
	}
	if f, err := ParseFields([]string{"call", "file"}); err != nil || f != Call|File {
		t.Errorf("ParseFields(call, file) = %v, %v", f, err)
	}
	if _, err := ParseFields([]string{"files"}); err == nil || !strings.Contains(err.Error(), `"files"`) {
		t.Errorf("ParseFields(files) = %v", err)
	}
}

func TestEscaped(t *testing.T) {
	t.Parallel()
	l := Line{Text: []byte("a\x1b[31mneedle\u202e b needle"), Spans: [][2]int{{6, 12}, {18, 24}}}
	text, spans := Escaped(&l)
	if want := `a\u001b[31mneedle\u202e b needle`; text != want {
		t.Fatalf("text %q, want %q", text, want)
	}
	for _, sp := range spans {
		if got := text[sp[0]:sp[1]]; got != "needle" {
			t.Errorf("span %v is %q", sp, got)
		}
	}
}

// TestSearchLinesOutliveReads: each worker reads every object into one
// buffer; the lines a Result holds must not change when the next object
// is read into it.
func TestSearchLinesOutliveReads(t *testing.T) {
	f := newFixture(t)
	var steps []manifest.Step
	var want []string
	for i := range 12 {
		text := fmt.Sprintf("%s needle %d\n", strings.Repeat("x", 200-i), i) // each shorter: the buffer is reused
		d, _, err := f.s.Put([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, manifest.Step{Index: i, Type: manifest.ToolCall, Tool: "read", OutputRef: d, Deterministic: true})
		want = append(want, strings.TrimSuffix(text, "\n"))
	}
	mf := &manifest.Manifest{Version: manifest.Version, Created: "2026-02-12T09:00:00Z", Model: manifest.Model{Identifier: "m"}, Steps: steps}
	p, _, err := manifest.Commit(f.s, mf)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := Compile(Pattern{Expr: "needle"})
	var results []*Result
	if _, err := Search(f.s, []digest.Digest{p}, m, Options{Fields: Output, Workers: 1}, func(r *Result) error {
		results = append(results, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range results {
		for _, l := range r.Lines {
			got = append(got, string(l.Text))
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lines after the search:\n%q\nwant:\n%q", got, want)
	}
}

// A step's parameters are searched from a copy: the decoded manifest's
// parameters are a view of the whole manifest, which holding them would
// keep for the whole search (a year of manifests is gigabytes).
func TestPlacesCopyParameters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mf, err := manifest.Load(f.s, f.packs[0])
	if err != nil {
		t.Fatal(err)
	}
	_, _, inline := placesOf(mf, Options{Fields: AllFields})
	if len(inline) != len(mf.Steps) {
		t.Fatalf("%d inline parameters for %d steps", len(inline), len(mf.Steps))
	}
	for i, b := range inline {
		p := mf.Steps[i].Parameters
		if string(b) != string(p) {
			t.Errorf("step %d: parameters %s, want %s", i, b, p)
		}
		if &b[:cap(b)][cap(b)-1] == &p[:cap(p)][cap(p)-1] || &b[0] == &p[0] {
			t.Errorf("step %d: parameters share the manifest's memory", i)
		}
	}
}

// Packs taken a window at a time find what one window finds, each object
// searched and its matches counted once, a match met again in a later
// window reported there with its places.
func TestSearchWindows(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, p := range []Pattern{{Expr: "needle", Fixed: true}, {Expr: "NEEDLE", Fixed: true, IgnoreCase: true}, {Expr: `n[e]+dle`}, {Expr: "zzz-none", Fixed: true}} {
		for _, mode := range []Mode{ModeLines, ModeCount, ModeExists} {
			whole, wst := f.search(t, p, Options{Mode: mode})
			one, ost := f.search(t, p, Options{Mode: mode, window: 1})
			slices.SortFunc(whole, compareHits)
			slices.SortFunc(one, compareHits)
			if !reflect.DeepEqual(whole, one) {
				t.Errorf("%q mode %d: a pack at a time finds\n%v\nall at once\n%v", p.Expr, mode, one, whole)
			}
			if wst != ost {
				t.Errorf("%q mode %d: stats %+v a pack at a time, %+v at once", p.Expr, mode, ost, wst)
			}
		}
	}
}

func compareHits(a, b hit) int {
	return cmp.Or(bytes.Compare(a.pack[:], b.pack[:]), strings.Compare(a.place, b.place), cmp.Compare(a.line, b.line), strings.Compare(a.text, b.text))
}

// TestSearchWindowOrder: windows are read ahead of the search, and
// results still come in window order: a pack that cannot be read is
// reported after the windows before it and before its own window's
// results.
func TestSearchWindowOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p2, p1 := f.packs[0], f.packs[1]
	missing := digest.Of([]byte("no such pack"))
	m, _ := Compile(Pattern{Expr: "needle"})
	var order []string
	_, err := Search(f.s, []digest.Digest{p2, missing, p1}, m, Options{window: 1}, func(r *Result) error {
		switch {
		case r.Err != nil:
			order = append(order, "error:"+r.Places[0].Pack.Short())
		default:
			order = append(order, r.Places[0].Pack.Short())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	at := slices.Index(order, "error:"+missing.Short())
	if at < 0 {
		t.Fatalf("no error for the missing pack: %v", order)
	}
	for i, o := range order {
		if i < at && o != p2.Short() || i > at && o != p1.Short() {
			t.Errorf("results out of window order: %v", order)
			break
		}
	}
	if at == 0 || at == len(order)-1 {
		t.Errorf("want results of both windows around the error: %v", order)
	}
}
