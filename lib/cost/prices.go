package cost

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Price is what a model costs, in US dollars per token.
type Price struct {
	Provider   string   // LiteLLM's litellm_provider: "anthropic", "openai", …
	Input      float64  // an input token neither read from nor written to a cache
	Output     float64  // an output token
	CacheRead  *float64 // a token read from the prompt cache; nil: Input
	CacheWrite *float64 // a token written to the prompt cache; nil: Input
	Reasoning  *float64 // a reasoning token, when priced apart; nil: Output
	// Above, when set, replaces the rates above for a call whose prompt
	// (input, cache reads and cache writes) exceeds Tier tokens.
	Tier  int64
	Above *Price
}

// Table is a price table: the model names it prices and where it comes
// from.
type Table struct {
	Name   string // where the prices come from, as reports name it
	models map[string]Price
}

//go:embed prices.json
var embedded []byte

// DefaultName names the embedded table.
const DefaultName = "LiteLLM model_prices_and_context_window.json @ 00035b69 (2026-11-29)"

var defaultTable = sync.OnceValue(func() *Table {
	t, err := Load(DefaultName, embedded)
	if err != nil {
		panic("cost: embedded prices: " + err.Error())
	}
	return t
})

// Default returns the embedded table (PRICES.md).
func Default() *Table { return defaultTable() }

// entry is a model of a LiteLLM price file, the members read.
type entry map[string]json.RawMessage

var tierKey = regexp.MustCompile(`^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost|output_cost_per_reasoning_token)_above_([0-9]+)k_tokens$`)

// Load parses a price table in LiteLLM's shape: an object of models, each
// with input_cost_per_token and output_cost_per_token (US dollars per
// token), optionally cache_read_input_token_cost,
// cache_creation_input_token_cost, output_cost_per_reasoning_token, one
// tier of them _above_<N>k_tokens, and litellm_provider. Models without
// both input and output rates (image, audio, embedding models, LiteLLM's
// sample_spec) are skipped; a rate that is not a non-negative number is an
// error naming the model.
func Load(name string, b []byte) (*Table, error) {
	var all map[string]entry
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, fmt.Errorf("reading prices %s: %w", name, err)
	}
	t := &Table{Name: name, models: make(map[string]Price, len(all))}
	for model, e := range all {
		if model == "sample_spec" || e == nil {
			continue
		}
		p, ok, err := parsePrice(e)
		if err != nil {
			return nil, fmt.Errorf("reading prices %s: model %q: %w", name, model, err)
		}
		if ok {
			t.models[model] = p
		}
	}
	return t, nil
}

func parsePrice(e entry) (Price, bool, error) {
	var p Price
	rate := func(key string) (*float64, error) {
		v, ok := e[key]
		if !ok || string(v) == "null" {
			return nil, nil
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(string(v)), 64)
		if err != nil || f < 0 {
			return nil, fmt.Errorf("%s: want a non-negative number, got %s", key, v)
		}
		return &f, nil
	}
	in, err := rate("input_cost_per_token")
	if err != nil {
		return p, false, err
	}
	out, err := rate("output_cost_per_token")
	if err != nil {
		return p, false, err
	}
	if in == nil || out == nil {
		return p, false, nil
	}
	p.Input, p.Output = *in, *out
	if p.CacheRead, err = rate("cache_read_input_token_cost"); err != nil {
		return p, false, err
	}
	if p.CacheWrite, err = rate("cache_creation_input_token_cost"); err != nil {
		return p, false, err
	}
	if p.Reasoning, err = rate("output_cost_per_reasoning_token"); err != nil {
		return p, false, err
	}
	if v, ok := e["litellm_provider"]; ok {
		_ = json.Unmarshal(v, &p.Provider) // a name, or nothing
	}
	for key := range e {
		m := tierKey.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		k, _ := strconv.ParseInt(m[2], 10, 64)
		if p.Above == nil {
			above := p
			above.Above, above.Tier = nil, 0
			p.Above, p.Tier = &above, k*1000
		} else if p.Tier != k*1000 {
			return p, false, fmt.Errorf("%s: a second tier (%dk tokens) is not supported", key, p.Tier/1000)
		}
		r, err := rate(key)
		if err != nil || r == nil {
			return p, false, err
		}
		switch m[1] {
		case "input_cost_per_token":
			p.Above.Input = *r
		case "output_cost_per_token":
			p.Above.Output = *r
		case "cache_read_input_token_cost":
			p.Above.CacheRead = r
		case "cache_creation_input_token_cost":
			p.Above.CacheWrite = r
		case "output_cost_per_reasoning_token":
			p.Above.Reasoning = r
		}
	}
	return p, true, nil
}

var dated = regexp.MustCompile(`-(20[0-9]{6}|20[0-9]{2}-[0-9]{2}-[0-9]{2})$`)

// Lookup returns the price of model: its own entry, else that of the name
// without a provider prefix ("anthropic/claude-sonnet-4-5"), with the
// version's dots as dashes ("claude-sonnet-4.5", as Copilot names
// Claude models), or without a date suffix ("gpt-4.1-2025-04-14"). It
// reports false when none is priced.
func (t *Table) Lookup(model string) (Price, bool) {
	seen := map[string]bool{}
	try := func(name string) (Price, bool) {
		if name == "" || seen[name] {
			return Price{}, false
		}
		seen[name] = true
		p, ok := t.models[name]
		return p, ok
	}
	bases := []string{model, strings.ToLower(model)}
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		bases = append(bases, strings.ToLower(model[i+1:]))
	}
	for _, b := range bases {
		cands := []string{b, dated.ReplaceAllString(b, "")}
		if strings.HasPrefix(b, "claude") {
			d := strings.ReplaceAll(b, ".", "-")
			cands = append(cands, d, dated.ReplaceAllString(d, ""))
		}
		for _, c := range cands {
			if p, ok := try(c); ok {
				return p, true
			}
		}
	}
	return Price{}, false
}

// ReadFile reads the price table in file name (Load's shape), named by
// its path, over the default one: the file's prices win, and the models
// it does not name keep the default's.
func ReadFile(name string) (*Table, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("reading prices: %w", err)
	}
	t, err := Load(name, b)
	if err != nil {
		return nil, err
	}
	for k, p := range Default().models {
		if _, ok := t.models[k]; !ok {
			t.models[k] = p
		}
	}
	t.Name += " over " + DefaultName
	return t, nil
}
