package cost_test

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctx-tools/ctx/internal/agenttest"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/opencode"
	. "github.com/ctx-tools/ctx/lib/cost"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

func i64(v int64) *int64 { return &v }

var yes, no = func() (*bool, *bool) { t, f := true, false; return &t, &f }()

func table(t *testing.T, js string) *Table {
	t.Helper()
	tb, err := Load("test", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestDefaultTable(t *testing.T) {
	t.Parallel()
	tb := Default()
	for _, tc := range []struct {
		model string
		in    float64
		ok    bool
	}{
		{"claude-sonnet-4-5", 3e-6, true},
		{"anthropic/claude-sonnet-4-5", 3e-6, true},
		{"claude-sonnet-4.5", 3e-6, true},         // Copilot's spelling
		{"claude-haiku-4-5-20251001", 1e-6, true}, // its own entry
		{"gpt-4o-2024-08-06", 2.5e-6, true},
		{"gpt-4.1-mini-2025-04-14", 4e-7, true}, // no entry of its own: the undated one
		{"openai/gpt-4o", 2.5e-6, true},
		{"gemini-2.5-pro", 0, false},
		{"mock", 0, false},
	} {
		p, ok := tb.Lookup(tc.model)
		if ok != tc.ok || ok && p.Input != tc.in {
			t.Errorf("Lookup(%q) = %v, %v; want input %v, %v", tc.model, p.Input, ok, tc.in, tc.ok)
		}
	}
	p, _ := tb.Lookup("claude-sonnet-4-5")
	if p.Tier != 200000 || p.Above == nil || p.Above.Input != 6e-6 || *p.Above.CacheRead != 6e-7 || p.Above.Output != 2.25e-5 {
		t.Errorf("claude-sonnet-4-5's long-context tier: %d %+v", p.Tier, p.Above)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	tb := table(t, `{"sample_spec":{"input_cost_per_token":0.0,"output_cost_per_token":0.0},
		"img":{"output_cost_per_image":0.04},
		"m":{"input_cost_per_token":1e-6,"output_cost_per_token":2e-6,"output_cost_per_reasoning_token":4e-6}}`)
	if _, ok := tb.Lookup("sample_spec"); ok {
		t.Error("sample_spec is priced")
	}
	if _, ok := tb.Lookup("img"); ok {
		t.Error("a model without token rates is priced")
	}
	if p, ok := tb.Lookup("m"); !ok || *p.Reasoning != 4e-6 {
		t.Errorf("m: %+v %v", p, ok)
	}
	for _, bad := range []string{`[]`, `{"m":{"input_cost_per_token":-1,"output_cost_per_token":1}}`, `{"m":{"input_cost_per_token":"x","output_cost_per_token":1}}`} {
		if _, err := Load("bad", []byte(bad)); err == nil {
			t.Errorf("Load(%s): no error", bad)
		}
	}
}

// One call, counted the Anthropic way (input without the cache) and the
// OpenAI way (input with it), costs the same dollars.
func TestCountingBothWays(t *testing.T) {
	t.Parallel()
	tb := table(t, `{"m":{"input_cost_per_token":3e-6,"output_cost_per_token":1.5e-5,
		"cache_read_input_token_cost":3e-7,"cache_creation_input_token_cost":3.75e-6,"litellm_provider":"x"}}`)
	p, _ := tb.Lookup("m")
	want := 3*3e-6 + 2000*3e-7 + 100*3.75e-6 + 20*1.5e-5
	excl := &manifest.Usage{InputTokens: i64(3), CacheReadTokens: i64(2000), CacheCreationTokens: i64(100), OutputTokens: i64(20)}
	incl := &manifest.Usage{InputTokens: i64(2103), CacheReadTokens: i64(2000), CacheCreationTokens: i64(100), OutputTokens: i64(20)}
	claude := Source{"claude-code", no, yes}
	codex := Source{"codex", yes, yes}
	if c := CountingOf(claude, "m", p, excl); c.InputHasCache {
		t.Errorf("claude-code: %+v", c)
	}
	if got := p.Cost(excl, CountingOf(claude, "m", p, excl)); !near(got, want) {
		t.Errorf("counted without the cache: %v, want %v", got, want)
	}
	if got := p.Cost(incl, CountingOf(codex, "m", p, incl)); !near(got, want) {
		t.Errorf("counted with the cache: %v, want %v", got, want)
	}
	// Read the wrong way, the same counters cost something else: the
	// source's way matters.
	if got := p.Cost(incl, Counting{false, true}); near(got, want) {
		t.Errorf("the counting makes no difference: %v", got)
	}
}

func TestCountingOf(t *testing.T) {
	t.Parallel()
	anth := Price{Provider: "anthropic"}
	oai := Price{Provider: "openai"}
	for _, tc := range []struct {
		name  string
		src   Source
		model string
		p     Price
		u     manifest.Usage
		want  Counting
	}{
		// No source: the model's API decides.
		{"anthropic api", Source{}, "claude-x", anth, manifest.Usage{InputTokens: i64(50), CacheReadTokens: i64(10)}, Counting{false, true}},
		{"openai api", Source{}, "gpt-x", oai, manifest.Usage{InputTokens: i64(50), CacheReadTokens: i64(10)}, Counting{true, true}},
		// Codex: total = input + output, so input holds the cache.
		{"codex total", Source{}, "gpt-x", oai, manifest.Usage{InputTokens: i64(4000), CacheReadTokens: i64(2000), OutputTokens: i64(60), ReasoningTokens: i64(30), TotalTokens: i64(4060)}, Counting{true, true}},
		// Gemini: total = input + output + reasoning.
		{"gemini total", Source{}, "gemini-x", Price{}, manifest.Usage{InputTokens: i64(5120), CacheReadTokens: i64(4096), OutputTokens: i64(64), ReasoningTokens: i64(210), TotalTokens: i64(5394)}, Counting{true, false}},
		// Cache reads above the input cannot be in it, whatever the source says.
		{"cache above input", Source{"x", yes, nil}, "gpt-x", oai, manifest.Usage{InputTokens: i64(3), CacheReadTokens: i64(2000)}, Counting{false, true}},
		{"opencode", Source{"opencode", no, no}, "gpt-x", oai, manifest.Usage{InputTokens: i64(4), CacheReadTokens: i64(1), OutputTokens: i64(10), ReasoningTokens: i64(5)}, Counting{false, false}},
	} {
		if got := CountingOf(tc.src, tc.model, tc.p, &tc.u); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestCostRates(t *testing.T) {
	t.Parallel()
	tb := table(t, `{
		"r":{"input_cost_per_token":1e-6,"output_cost_per_token":1e-5,"output_cost_per_reasoning_token":2e-5},
		"t":{"input_cost_per_token":1e-6,"output_cost_per_token":1e-5,"cache_read_input_token_cost":1e-7,
		     "input_cost_per_token_above_200k_tokens":2e-6,"output_cost_per_token_above_200k_tokens":2e-5,
		     "cache_read_input_token_cost_above_200k_tokens":2e-7}}`)
	r, _ := tb.Lookup("r")
	u := &manifest.Usage{InputTokens: i64(100), OutputTokens: i64(50), ReasoningTokens: i64(30), CacheReadTokens: i64(40)}
	// Reasoning priced apart, counted in the output: 20 text, 30 reasoning;
	// no cache-read rate: the input's.
	if got, want := r.Cost(u, Counting{true, true}), 60*1e-6+40*1e-6+20*1e-5+30*2e-5; !near(got, want) {
		t.Errorf("reasoning in output: %v, want %v", got, want)
	}
	if got, want := r.Cost(u, Counting{true, false}), 100*1e-6+50*1e-5+30*2e-5; !near(got, want) {
		t.Errorf("reasoning apart: %v, want %v", got, want)
	}
	tp, _ := tb.Lookup("t")
	at := &manifest.Usage{InputTokens: i64(150000), CacheReadTokens: i64(50000), OutputTokens: i64(10)}
	if got, want := tp.Cost(at, Counting{false, true}), 150000*1e-6+50000*1e-7+10*1e-5; !near(got, want) {
		t.Errorf("at the tier: %v, want %v", got, want)
	}
	above := &manifest.Usage{InputTokens: i64(150001), CacheReadTokens: i64(50000), OutputTokens: i64(10)}
	if got, want := tp.Cost(above, Counting{false, true}), 150001*2e-6+50000*2e-7+10*2e-5; !near(got, want) {
		t.Errorf("above the tier: %v, want %v", got, want)
	}
}

// A model the table does not price is named, and its steps are not
// priced at 0.
func TestUnpriced(t *testing.T) {
	t.Parallel()
	m := &manifest.Manifest{Model: manifest.Model{Identifier: "gpt-4o"}, Steps: []manifest.Step{
		{Type: manifest.LLMCall, Usage: &manifest.Usage{InputTokens: i64(1000), OutputTokens: i64(100)}},
		{Type: manifest.LLMCall, Usage: &manifest.Usage{InputTokens: i64(10)}, Metadata: []byte(`{"model":"local-llama"}`)},
		{Type: manifest.ToolCall},
	}}
	p := Of(m, Default())
	if !slices.Equal(p.Unpriced, []string{"local-llama"}) {
		t.Errorf("unpriced %q", p.Unpriced)
	}
	if p.USD == nil || !near(*p.USD, 1000*2.5e-6+100*1e-5) {
		t.Errorf("USD %v", p.USD)
	}
	if p.Steps[1] == nil || p.Steps[1].USD() != nil || p.Steps[2] != nil {
		t.Errorf("steps %+v %+v", p.Steps[1], p.Steps[2])
	}
	if len(p.Models) != 2 || p.Models[1].Name != "local-llama" || p.Models[1].USD != nil {
		t.Errorf("models %+v", p.Models)
	}
	none := Of(&manifest.Manifest{Model: manifest.Model{Identifier: "x"}, Steps: []manifest.Step{
		{Type: manifest.LLMCall, Usage: &manifest.Usage{InputTokens: i64(10)}}}}, Default())
	if none.USD != nil || !slices.Equal(none.Unpriced, []string{"x"}) {
		t.Errorf("only unpriced: USD %v, unpriced %q", none.USD, none.Unpriced)
	}
}

// A run without usage or metadata has no figure (HasFigures), and Of
// finds none; any of them and HasFigures says there may be one.
func TestHasFigures(t *testing.T) {
	t.Parallel()
	plain := func() *manifest.Manifest {
		return &manifest.Manifest{Model: manifest.Model{Identifier: "x"}, Steps: []manifest.Step{
			{Type: manifest.LLMCall}, {Type: manifest.ToolCall, Tool: "t"}}}
	}
	if m := plain(); HasFigures(m) {
		t.Error("HasFigures of a run without usage or metadata")
	} else if p := Of(m, Default()); p.USD != nil || len(p.Unpriced) != 0 {
		t.Errorf("Of found USD %v, unpriced %q where HasFigures finds nothing", p.USD, p.Unpriced)
	}
	for name, edit := range map[string]func(m *manifest.Manifest){
		"usage":         func(m *manifest.Manifest) { m.Steps[0].Usage = &manifest.Usage{InputTokens: i64(10)} },
		"step metadata": func(m *manifest.Manifest) { m.Steps[1].Metadata = []byte(`{"usage":{"cost_usd":0.5}}`) },
		"run metadata":  func(m *manifest.Manifest) { m.Metadata = []byte(`{"cost":{"totalCostUSD":0.25}}`) },
	} {
		m := plain()
		edit(m)
		p := Of(m, Default())
		if !HasFigures(m) {
			t.Errorf("%s: HasFigures is false", name)
		}
		if p.USD == nil && len(p.Unpriced) == 0 {
			t.Errorf("%s: Of found nothing either (the case shows nothing)", name)
		}
	}
}

// pack imports a fixture and packs it into a new store.
func pack(t *testing.T, f string, path string) *manifest.Manifest {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	log, _, err := formats.Import(f, data, importer.Options{Dir: filepath.Dir(path)})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return agenttest.PackLog(t, s, log)
}

// The computed figure against the agent's own, on every fixture that
// records both, over the steps that have both (and, for Claude Code,
// whose figure is the session's, over the session).
//
// Claude Code prices its calls at Anthropic's list prices, which the
// table holds: the figures agree to the nano-dollar. The ATIF and
// OpenCode fixtures were written by hand, and their costs are not what
// any rate gives for their tokens: the differences below are the
// fixtures', stated so that a change in pricing shows.
func TestAgentAgainstComputed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name            string
		format          string
		path            string
		computed, agent float64 // over the steps with both; derived by hand
	}{
		// Sonnet 4.5: 3 + 5 input at $3/M, 1,500 cache writes at
		// $3.75/M, 31,200 cache reads at $0.30/M, 160 output at $15/M;
		// Haiku 4.5: 800 input at $1/M, 60 output at $5/M.
		{"claude-code", claudecode.Name, "testdata/claude-code-cost.jsonl",
			8*3e-6 + 1500*3.75e-6 + 31200*3e-7 + 160*1.5e-5 + 800*1e-6 + 60*5e-6, 0.018509},
		// Sonnet 4.5, input counted with the cache as ATIF counts it:
		// step 0, 496 fresh + 1,024 read + 96 output ($0.0032352 against
		// $0.00312: the trajectory's 410 cache writes are in its extra,
		// not its usage); step 12, 3,100 input + 12 output ($0.00948
		// against $0.0004).
		{"atif", importer.ATIF, "../importer/testdata/atif/harbor.json",
			496*3e-6 + 1024*3e-7 + 96*1.5e-5 + 3100*3e-6 + 12*1.5e-5, 0.00312 + 0.0004},
		// Sonnet 4.5, input counted without the cache as OpenCode counts
		// it: step 0, 4 input + 1,830 writes + 11,900 reads + 180 output
		// ($0.0131445 against $0.0121); step 3, 3 + 12,200 reads + 232
		// output ($0.007149 against $0.0092); step 7, nothing ($0, $0).
		{"opencode", opencode.Name, "../agent/opencode/testdata/opencode/export.json",
			4*3e-6 + 1830*3.75e-6 + 11900*3e-7 + 180*1.5e-5 + 3*3e-6 + 12200*3e-7 + 232*1.5e-5, 0.0121 + 0.0092},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := pack(t, tc.format, tc.path)
			p := Of(m, Default())
			var agent, computed float64
			both := 0
			for i, st := range p.Steps {
				if st != nil && st.Agent != nil && st.Computed != nil {
					t.Logf("step %d (%s): agent $%.9f, computed $%.9f", i, st.Model, *st.Agent, *st.Computed)
					agent += *st.Agent
					computed += *st.Computed
					both++
				}
			}
			if both == 0 { // the figure is the session's
				if p.Agent == nil || p.Computed == nil {
					t.Fatalf("agent %v, computed %v", p.Agent, p.Computed)
				}
				agent, computed = *p.Agent, *p.Computed
			}
			t.Logf("agent $%.9f, computed $%.9f, difference $%.9f", agent, computed, computed-agent)
			if !near(Round(agent), Round(tc.agent)) || !near(Round(computed), Round(tc.computed)) {
				t.Errorf("agent $%v, computed $%v; want $%v, $%v", Round(agent), Round(computed), Round(tc.agent), Round(tc.computed))
			}
		})
	}
}

// Claude Code's session total is the run's figure, and its per-model
// figures the models'; the agents' are the steps' sums.
func TestSessionFigure(t *testing.T) {
	t.Parallel()
	m := pack(t, claudecode.Name, "testdata/claude-code-cost.jsonl")
	p := Of(m, Default())
	if p.USD == nil || *p.USD != 0.018509 || len(p.Unpriced) != 0 {
		t.Fatalf("USD %v, unpriced %q", p.USD, p.Unpriced)
	}
	got := map[string]float64{}
	for _, tl := range p.Models {
		got[tl.Name] = *tl.USD
	}
	if got["claude-sonnet-4-5-20250929"] != 0.017409 || got["claude-haiku-4-5-20251001"] != 0.0011 {
		t.Errorf("models %v", got)
	}
	if len(p.Agents) != 1 || p.Agents[0].USD == nil || !near(*p.Agents[0].USD, 0.018509) {
		t.Errorf("agents %+v", p.Agents)
	}
	if st := p.Steps[0]; st == nil || st.Agent != nil || st.Computed == nil || !near(*st.Computed, Round(3*3e-6+1200*3.75e-6+15000*3e-7+40*1.5e-5)) {
		t.Errorf("step 0 %+v", st)
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		v    *float64
		want string
	}{{nil, "-"}, {f(0), "$0"}, {f(1.234), "$1.23"}, {f(1234.5), "$1234.50"}, {f(0.018509), "$0.01851"}, {f(0.0000123), "$0.0000123"}, {f(0.5), "$0.5"}} {
		if got := Format(tc.v); got != tc.want {
			t.Errorf("Format(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// A --prices file overrides the default table where it names a model,
// and leaves the others priced.
func TestReadFile(t *testing.T) {
	t.Parallel()
	f := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(f, []byte(`{"gpt-4o":{"input_cost_per_token":1,"output_cost_per_token":1},"mine":{"input_cost_per_token":2,"output_cost_per_token":2}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	for model, in := range map[string]float64{"gpt-4o": 1, "mine": 2, "claude-sonnet-4-5": 3e-6} {
		if p, ok := tb.Lookup(model); !ok || p.Input != in {
			t.Errorf("%s: %v %v, want %v", model, p.Input, ok, in)
		}
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("a missing file read")
	}
}
