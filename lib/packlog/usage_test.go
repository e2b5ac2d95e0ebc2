package packlog

import (
	"reflect"
	"testing"

	"github.com/ctx-tools/ctx/lib/manifest"
)

func i64(v int64) *int64 { return &v }

// An entry with usage takes the fast path, reads as the strict decoder
// reads it, and its log line carries cost_usd, tokens and unpriced; an
// entry without (written before usage was kept) has none of them.
func TestEntryUsage(t *testing.T) {
	t.Parallel()
	cost := 0.0123
	sum := manifest.Summary{Hash: hashA, Created: "2026-02-10T09:00:00Z", Model: "m", Steps: 3, Parent: hashB,
		Usage: &manifest.SummaryUsage{
			CostUSD: &cost, Prices: "p", Session: "s1", Unpriced: []string{"x"},
			Tokens: manifest.Usage{InputTokens: i64(1200), OutputTokens: i64(80), CacheReadTokens: i64(1000)},
			Models: []manifest.SummaryTally{{CostUSD: &cost, Name: "m", Steps: 1, Tokens: manifest.Usage{InputTokens: i64(1200)}}},
		}}
	b := encode(t, sum)
	fast, ok := parseCanonical(hashA, b, nil, nil)
	if !ok {
		t.Fatalf("the fast path refused %s", b)
	}
	strict, err := manifest.ParseSummary(hashA, b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fast.Summary, strict) || !reflect.DeepEqual(strict, sum) {
		t.Errorf("fast %+v\nstrict %+v\nwant %+v", fast.Summary, strict, sum)
	}
	line := string(fast.AppendJSON(nil))
	want := `{"cost_usd":0.0123,"created":"2026-02-10T09:00:00Z","hash":"sha256:` + hashA.Hex() + `","inputs":0,"model":"m","outputs":0,` +
		`"parent":"sha256:` + hashB.Hex() + `","steps":3,"tags":[],"tokens":{"cache_read_tokens":1000,"input_tokens":1200,"output_tokens":80},` +
		`"unpriced":["x"],"uri":"ctx://` + hashA.Hex() + `"}`
	if line != want {
		t.Errorf("line\n%s\nwant\n%s", line, want)
	}
	old, err := ParseEntry(hashA, encode(t, sum.Core()))
	if err != nil {
		t.Fatal(err)
	}
	wantOld := `{"created":"2026-02-10T09:00:00Z","hash":"sha256:` + hashA.Hex() + `","inputs":0,"model":"m","outputs":0,` +
		`"parent":"sha256:` + hashB.Hex() + `","steps":3,"tags":[],"uri":"ctx://` + hashA.Hex() + `"}`
	if got := string(old.AppendJSON(nil)); got != wantOld {
		t.Errorf("old entry's line\n%s\nwant\n%s", got, wantOld)
	}
	// A usage member that is not the summary's shape is the strict
	// decoder's to refuse.
	bad := []byte(`{"created":"2026-02-10T09:00:00Z","hash":"` + hashA.String() + `","inputs":0,"model":"m","outputs":0,"steps":0,"usage":{"tokens":{},"bogus":1}}` + "\n")
	if _, ok := parseCanonical(hashA, bad, nil, nil); ok {
		t.Error("the fast path took an unknown usage member")
	}
	if _, err := ParseEntry(hashA, bad); err == nil {
		t.Error("an unknown usage member parsed")
	}
}
