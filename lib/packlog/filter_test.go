package packlog

import (
	"strings"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/lib/manifest"
)

func TestParseQuery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		q        string
		manifest bool
		err      string
	}{
		{q: "steps>10"},
		{q: "steps > 10"},
		{q: "steps"},
		{q: `model=="gpt-4o"`},
		{q: `model%"gpt-*"`},
		{q: `model!%"gpt-*"`},
		{q: "parent"},
		{q: `created<"2026"`},
		{q: `tags.#(=="v1")`},
		{q: `tags.#>0`},
		{q: `hash%"sha256:ab*"`},
		{q: `uri!=""`},
		{q: "model.parameters.temperature==0", manifest: true},
		{q: `steps.#(tool=="run_tests")`, manifest: true},
		{q: "steps.#>3", manifest: true},
		{q: `inputs.#(name%"*.py")`, manifest: true},
		{q: `outputs.0.confidence=="high"`, manifest: true},
		{q: `environment.os=="linux"`, manifest: true},
		{q: `system_prompt`, manifest: true},
		{q: `metadata.ticket=="CTX-6"`, manifest: true},
		{q: `version=="0.1"`, manifest: true},
		{q: "", err: "empty query"},
		{q: "stepz>1", err: `"stepz" is neither`},
		{q: "#(steps>1)", err: "start it with a field name"},
	} {
		q, err := ParseQuery(tc.q)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseQuery(%q) error %v, want %q", tc.q, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseQuery(%q): %v", tc.q, err)
			continue
		}
		if q.NeedsManifest() != tc.manifest {
			t.Errorf("ParseQuery(%q).NeedsManifest() = %v, want %v", tc.q, q.NeedsManifest(), tc.manifest)
		}
	}
}

func TestQueryMatch(t *testing.T) {
	t.Parallel()
	e := Entry{Summary: manifest.Summary{Hash: hashA, Created: "2026-02-10T09:00:00Z", Model: "gpt-4o", Steps: 12, Parent: hashB}, Tags: []string{"release", "v1"}}
	line := e.AppendJSON(nil)
	root := Entry{Summary: manifest.Summary{Hash: hashB, Created: "2026-02-10T09:00:00Z", Model: "claude", Steps: 3}}
	rootLine := root.AppendJSON(nil)
	for _, tc := range []struct {
		q          string
		line, root bool
	}{
		{"steps>10", true, false},
		{"steps<=3", false, true},
		{`model%"gpt-*"`, true, false},
		{`model!="gpt-4o"`, false, true},
		{"parent", true, false},
		{`tags.#(=="v1")`, true, false},
		{`tags.#==0`, false, true},
		{`hash=="` + hashB.String() + `"`, false, true},
		{`created=="2026-02-10T09:00:00Z"`, true, true},
	} {
		q, err := ParseQuery(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.Match(line); got != tc.line {
			t.Errorf("%s on %s: %v", tc.q, line, got)
		}
		if got := q.Match(rootLine); got != tc.root {
			t.Errorf("%s on %s: %v", tc.q, rootLine, got)
		}
	}
}

func TestParseTime(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ in, want string }{
		{"2026-02-10T09:00:00Z", "2026-02-10T09:00:00Z"},
		{"2026-02-10T10:00:00+01:00", "2026-02-10T09:00:00Z"},
		{"2026-02-10T09:00:00.25Z", "2026-02-10T09:00:00.25Z"},
		{"2026-02-10T09:00:00", "2026-02-10T09:00:00Z"},
		{"2026-02-10T09:00", "2026-02-10T09:00:00Z"},
		{"2026-02-10", "2026-02-10T00:00:00Z"},
		{"36h", "2026-02-28T00:00:00Z"},
		{"90m", "2026-03-01T10:30:00Z"},
		{"7d", "2026-02-22T12:00:00Z"},
		{"2w", "2026-02-15T12:00:00Z"},
		{"0d", "2026-03-01T12:00:00Z"},
	} {
		got, err := ParseTime(tc.in, now)
		if err != nil {
			t.Errorf("ParseTime(%q): %v", tc.in, err)
			continue
		}
		if s := got.UTC().Format(time.RFC3339Nano); s != tc.want {
			t.Errorf("ParseTime(%q) = %s, want %s", tc.in, s, tc.want)
		}
	}
	for _, bad := range []string{"", "yesterday", "-3h", "-1d", "3x", "d", "2026-13-01", "2026-02-10 09:00"} {
		if got, err := ParseTime(bad, now); err == nil {
			t.Errorf("ParseTime(%q) = %v, want an error", bad, got)
		}
	}
}

func TestSetRange(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var f Filter
	if err := f.SetRange("7d", "", now); err != nil {
		t.Fatal(err)
	}
	if got := f.Since.Format(time.RFC3339); got != "2026-02-22T12:00:00Z" || !f.Until.IsZero() {
		t.Errorf("SetRange(7d, \"\") = since %s, until %v", got, f.Until)
	}
	if err := f.SetRange("", "2026-02-10", now); err != nil {
		t.Fatal(err)
	}
	if got := f.Until.Format(time.RFC3339); got != "2026-02-10T00:00:00Z" {
		t.Errorf("until = %s", got)
	}
	for _, tc := range []struct{ since, until, flag string }{{"soon", "", "--since: "}, {"", "later", "--until: "}} {
		err := new(Filter).SetRange(tc.since, tc.until, now)
		if err == nil || !strings.HasPrefix(err.Error(), tc.flag) {
			t.Errorf("SetRange(%q, %q) = %v, want an error naming %s", tc.since, tc.until, err, tc.flag)
		}
	}
}

func TestFilterSummary(t *testing.T) {
	t.Parallel()
	e := entry(t, hashA, "2026-02-10T10:00:00+01:00")
	e.Model = "gpt-4o"
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name string
		f    Filter
		want bool
	}{
		{"none", Filter{}, true},
		{"model", Filter{Model: "gpt-4o"}, true},
		{"other model", Filter{Model: "gpt-4"}, false},
		{"since equal", Filter{Since: at("2026-02-10T09:00:00Z")}, true},
		{"since after", Filter{Since: at("2026-02-10T09:00:01Z")}, false},
		{"until equal", Filter{Until: at("2026-02-10T09:00:00Z")}, true},
		{"until before", Filter{Until: at("2026-02-10T08:59:59Z")}, false},
	} {
		if got := tc.f.matchSummary(&e); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
