package importer

import (
	"strconv"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/manifest"
)

// normUsageByPath is normUsage as first written, one gjson path search
// per name: the oracle FuzzNormUsage holds the one-pass form to.
func normUsageByPath(u gjson.Result) (*manifest.Usage, []byte) {
	if !u.IsObject() {
		return nil, nil
	}
	counts := &manifest.Usage{}
	fields := map[string]**int64{}
	for _, f := range counts.Fields() {
		fields[f.Name] = f.Value
	}
	taken := map[string]bool{}
	for _, n := range usageNames {
		for _, p := range n.paths {
			v := u.Get(p)
			if v.Type != gjson.Number || !IsDigits(v.Raw) {
				continue
			}
			c, err := strconv.ParseInt(v.Raw, 10, 64)
			if err != nil {
				continue
			}
			*fields[n.name] = &c
			taken[p] = true
			break
		}
	}
	if len(taken) == 0 {
		return nil, nil
	}
	return counts, without(u, taken, "").Raw()
}

func FuzzNormUsage(f *testing.F) {
	for _, s := range []string{
		`{"input_tokens":3,"output_tokens":210,"cache_read_input_tokens":45678,"service_tier":"standard"}`,
		`{"prompt_tokens":10,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":4,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":2}}`,
		`{"input_tokens":1,"input_tokens":2,"input_tokens_details":{"cached_tokens":"x"},"total_tokens":-1}`,
		`{"input_token_details":{"cache_read":7,"cache_creation":1},"output_token_details":{"reasoning":3},"input_tokens":1e3}`,
		`{"a\u005fb":1,"input\u005ftokens":5,"reasoning_output_tokens":99999999999999999999}`,
		`[1,2]`, `{}`, `{"usage":{"input_tokens":1}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !gjson.Valid(s) {
			return
		}
		u := gjson.Parse(s)
		gotU, gotLeft := normUsage(u)
		wantU, wantLeft := normUsageByPath(u)
		if (gotU == nil) != (wantU == nil) || string(gotLeft) != string(wantLeft) {
			t.Fatalf("%s: got %v %s, want %v %s", s, gotU, gotLeft, wantU, wantLeft)
		}
		if gotU == nil {
			return
		}
		g, w := gotU.Fields(), wantU.Fields()
		for i := range g {
			if (*g[i].Value == nil) != (*w[i].Value == nil) || *g[i].Value != nil && **g[i].Value != **w[i].Value {
				t.Fatalf("%s: %s differs", s, g[i].Name)
			}
		}
	})
}

// BenchmarkTakeUsage takes a Claude Code model turn's usage from its
// metadata, as turn does for every model turn of a session.
func BenchmarkTakeUsage(b *testing.B) {
	meta := Obj{
		{"id", Quote("msg_01XYZ")},
		{"model", Quote("claude-opus-4-1")},
		{"stop_reason", Quote("tool_use")},
		{"usage", []byte(`{"input_tokens":3,"cache_creation_input_tokens":1234,"cache_read_input_tokens":45678,"output_tokens":210,"service_tier":"standard"}`)},
		{"uuid", Quote("0b3c5d7e")},
		{"request_id", Quote("req_011")},
		{"merged_records", []byte(`[{"uuid":"a"},{"uuid":"b"}]`)},
	}
	for range b.N {
		takeUsage(Join(meta))
	}
}
