package importer

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/manifest"
)

// usageNames maps each token counter of the log's step usage to where the
// formats record it, first match winning: Anthropic and Claude Code
// (cache_*_input_tokens), OpenAI Chat Completions (prompt_tokens,
// *_details), Responses, Codex token_count (cached_input_tokens,
// reasoning_output_tokens), Inspect (input_tokens_cache_*) and LangChain
// (input_token_details, output_token_details).
var usageNames = []struct {
	name  string
	paths []string
}{
	{"input_tokens", []string{"input_tokens", "prompt_tokens"}},
	{"output_tokens", []string{"output_tokens", "completion_tokens"}},
	{"cache_read_tokens", []string{"cache_read_input_tokens", "cached_input_tokens", "input_tokens_cache_read",
		"prompt_tokens_details.cached_tokens", "input_tokens_details.cached_tokens", "input_token_details.cache_read"}},
	{"cache_creation_tokens", []string{"cache_creation_input_tokens", "input_tokens_cache_write", "input_token_details.cache_creation"}},
	{"reasoning_tokens", []string{"reasoning_output_tokens", "reasoning_tokens",
		"completion_tokens_details.reasoning_tokens", "output_tokens_details.reasoning_tokens", "output_token_details.reasoning"}},
	{"total_tokens", []string{"total_tokens"}},
}

// usageField is, for each of usageNames, its place in manifest.Usage's
// Fields.
var usageField = func() []int {
	fields := (&manifest.Usage{}).Fields()
	out := make([]int, len(usageNames))
	for i, n := range usageNames {
		out[i] = slices.IndexFunc(fields, func(f manifest.UsageField) bool { return f.Name == n.name })
		if out[i] < 0 {
			panic("importer: no usage field " + n.name)
		}
	}
	return out
}()

// takeUsage moves the token counts of meta's "usage" member (LangChain:
// "usage_metadata") into the step's usage, named as the log names them.
// Counters it does not know, and values that are not non-negative
// integers, stay in the metadata.
func takeUsage(meta Obj) (*manifest.Usage, Obj) {
	for _, key := range []string{"usage", "usage_metadata"} {
		u := meta.Get(key)
		if u == nil {
			continue
		}
		usage, left := normUsage(gjson.ParseBytes(u))
		if usage == nil {
			continue
		}
		var out Obj
		if len(meta) > 1 {
			out = make(Obj, 0, len(meta)) // all but key's, and what is left of it
		}
		for _, m := range meta {
			if m.K == key {
				if left != nil {
					out = append(out, Member{key, left})
				}
				continue
			}
			out = append(out, m)
		}
		return usage, out
	}
	return nil, meta
}

// normUsage splits a usage object into the log's counters and what is
// left of it (nil when nothing is).
func normUsage(u gjson.Result) (usage *manifest.Usage, left json.RawMessage) {
	if !u.IsObject() {
		return nil, nil
	}
	// The members once, not a path search from the start per name: a
	// session has a usage object per model turn.
	type kv struct {
		k string
		v gjson.Result
	}
	members := make([]kv, 0, 8) // Claude Code's has 5 to 7
	Each(u, func(k, v gjson.Result) bool {
		members = append(members, kv{k.String(), v})
		return true
	})
	get := func(k string) gjson.Result { // the first, as gjson's Get
		for _, m := range members {
			if m.k == k {
				return m.v
			}
		}
		return gjson.Result{}
	}
	counts := &manifest.Usage{}
	fields := counts.Fields()
	taken := make([]string, 0, len(usageNames)) // the names read, as paths
	nested := false
	for i, n := range usageNames {
		for _, p := range n.paths {
			var v gjson.Result
			if k, sub, nested := strings.Cut(p, "."); nested {
				// As gjson's Get: the first member k that holds sub.
				for _, m := range members {
					if m.k == k {
						if v = m.v.Get(sub); v.Exists() {
							break
						}
					}
				}
			} else {
				v = get(p)
			}
			if v.Type != gjson.Number || !IsDigits(v.Raw) {
				continue
			}
			c, err := strconv.ParseInt(v.Raw, 10, 64)
			if err != nil {
				continue
			}
			*fields[usageField[i]].Value = &c
			taken = append(taken, p)
			nested = nested || strings.Contains(p, ".")
			break
		}
	}
	switch {
	case len(taken) == 0:
		return nil, nil
	case nested:
		set := map[string]bool{}
		for _, p := range taken {
			set[p] = true
		}
		return counts, without(u, set, "").Raw()
	}
	// What without gives when every name taken is a member's.
	kept := make(Obj, 0, max(len(members)-len(taken), 0))
	for _, m := range members {
		if !slices.Contains(taken, m.k) {
			kept = append(kept, Member{m.k, Raw(m.v)})
		}
	}
	return counts, kept.Raw()
}

// without returns object o without the dotted paths in taken (relative to
// prefix); members left empty are dropped.
func without(o gjson.Result, taken map[string]bool, prefix string) Obj {
	var out Obj
	Each(o, func(k, v gjson.Result) bool {
		p := prefix + k.String()
		switch {
		case taken[p]:
		case v.IsObject() && hasPrefix(taken, p+"."):
			if rest := without(v, taken, p+"."); len(rest) > 0 {
				out = append(out, Member{k.String(), rest.Raw()})
			}
		default:
			out = append(out, Member{k.String(), Raw(v)})
		}
		return true
	})
	return out
}

func hasPrefix(taken map[string]bool, prefix string) bool {
	for p := range taken {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}
