package packlog

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/digest"
)

// Filter selects entries. Zero fields select everything.
type Filter struct {
	Model string    // exact model identifier
	Since time.Time // created at or after (inclusive)
	Until time.Time // created at or before (inclusive)
	Where []Query   // every query must match
	// Only, when not nil, selects just the packs it holds (the values are
	// the caller's).
	Only map[digest.Digest]int
}

// matchSummary reports whether e passes every test that needs only its
// summary: model, time range and the queries on summary fields.
func (f *Filter) matchSummary(e *Entry) bool {
	if f.Only != nil {
		if _, ok := f.Only[e.Hash]; !ok {
			return false
		}
	}
	if f.Model != "" && e.Model != f.Model {
		return false
	}
	if !f.Since.IsZero() && e.Time().Before(f.Since) {
		return false
	}
	if !f.Until.IsZero() && e.Time().After(f.Until) {
		return false
	}
	var line []byte
	for _, q := range f.Where {
		if q.manifest {
			continue
		}
		if line == nil {
			line = e.AppendJSON(make([]byte, 0, 320))
		}
		if !q.Match(line) {
			return false
		}
	}
	return true
}

// needsManifest reports whether some query reads manifests.
func (f *Filter) needsManifest() bool {
	for _, q := range f.Where {
		if q.manifest {
			return true
		}
	}
	return false
}

// needsLine reports whether some query reads the log line.
func (f *Filter) needsLine() bool {
	for _, q := range f.Where {
		if !q.manifest {
			return true
		}
	}
	return false
}

// onProjection reports whether every query that reads manifests can read
// their projections instead.
func (f *Filter) onProjection() bool {
	for _, q := range f.Where {
		if q.manifest && !q.projected {
			return false
		}
	}
	return true
}

// matchManifest reports whether the manifest doc passes every query that
// reads manifests.
func (f *Filter) matchManifest(doc []byte) bool {
	for _, q := range f.Where {
		if q.manifest && !q.Match(doc) {
			return false
		}
	}
	return true
}

// Query is a gjson query condition, the inside of gjson's #(…), tested
// against one pack: `steps>10`, `model%"gpt-4*"`, `tags.#(=="release")`,
// `model.parameters.temperature==0`, `steps.#(tool=="run_tests")`,
// `environment.os=="linux"`.
//
// A query on a log line field (hash, uri, tags; or created, parent, model,
// steps, inputs, outputs compared directly, where steps, inputs and
// outputs are counts and model is the identifier) is answered from the
// packs/ entry. Any other query names manifest fields (a path into model,
// steps, prompts, inputs or outputs, or version, system_prompt,
// environment, metadata) and is answered from the pack's stored manifest,
// which is then read for each pack that passed the other filters.
type Query struct {
	text     string
	manifest bool
	// projected: a manifest's projection answers it (onProjection).
	projected bool
}

// Fields a log line has and a manifest does not (or not in that form).
var lineOnly = map[string]bool{"hash": true, "uri": true, "tags": true, "tokens": true, "cost_usd": true, "unpriced": true}

// Fields in both: as a whole they are the summary's value; a path into
// them is the manifest's.
var shared = map[string]bool{"created": true, "parent": true, "model": true, "steps": true, "inputs": true, "outputs": true}

var manifestOnly = map[string]bool{"version": true, "system_prompt": true, "prompts": true, "environment": true, "metadata": true}

// ParseQuery checks a --where query and decides what it reads. Its first
// path element must be a log line or manifest field name.
func ParseQuery(text string) (Query, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return Query{}, errors.New("empty query")
	}
	i := strings.IndexAny(t, ".|#@*?=!<>%() \t\\")
	if i < 0 {
		i = len(t)
	}
	key, rest := t[:i], strings.TrimLeft(t[i:], " \t")
	switch {
	case lineOnly[key]:
		return Query{text: t}, nil
	case shared[key]:
		direct := rest == "" || strings.ContainsRune("=!<>%", rune(rest[0]))
		return Query{text: t, manifest: !direct, projected: !direct && onProjection(t)}, nil
	case manifestOnly[key]:
		return Query{text: t, manifest: true, projected: onProjection(t)}, nil
	case key == "":
		return Query{}, fmt.Errorf("query %q: start it with a field name (hash, uri, created, model, steps, inputs, outputs, parent, tags, tokens, cost_usd, unpriced, or a manifest field)", text)
	}
	return Query{}, fmt.Errorf("query %q: %q is neither a log line field (hash, uri, created, model, steps, inputs, outputs, parent, tags, tokens, cost_usd, unpriced) nor a manifest field (version, system_prompt, prompts, environment, metadata, or a path into model, steps, inputs, outputs)", text, key)
}

// String returns the query text.
func (q Query) String() string { return q.text }

// NeedsManifest reports whether the query reads the pack's manifest.
func (q Query) NeedsManifest() bool { return q.manifest }

// Match reports whether the JSON object doc satisfies the query.
func (q Query) Match(doc []byte) bool {
	arr := make([]byte, 0, len(doc)+2)
	arr = append(append(append(arr, '['), doc...), ']')
	return gjson.GetBytes(arr, "#("+q.text+")").Exists()
}

// SetRange sets f's time range from the values of --since and --until,
// each in a form ParseTime reads; an empty value leaves that end open.
// The error names the flag whose value it is.
func (f *Filter) SetRange(since, until string, now time.Time) error {
	for _, t := range []struct {
		flag, val string
		dst       *time.Time
	}{{"--since", since, &f.Since}, {"--until", until, &f.Until}} {
		if t.val == "" {
			continue
		}
		v, err := ParseTime(t.val, now)
		if err != nil {
			return fmt.Errorf("%s: %w", t.flag, err)
		}
		*t.dst = v
	}
	return nil
}

// ParseTime parses a --since or --until value: an RFC 3339 time, a date
// or date and time without zone (read as UTC: 2026-02-10,
// 2026-02-10T09:00:00), or an age before now: a Go duration (90m, 36h) or
// a number of days or weeks (7d, 2w).
func ParseTime(s string, now time.Time) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if n := len(s); n >= 2 && (s[n-1] == 'd' || s[n-1] == 'w') {
		if v, err := strconv.Atoi(s[:n-1]); err == nil && v >= 0 {
			days := v
			if s[n-1] == 'w' {
				days *= 7
			}
			return now.AddDate(0, 0, -days), nil
		}
	}
	return time.Time{}, fmt.Errorf("time %q: want RFC 3339 (2026-02-10T09:00:00Z), a date (2026-02-10) or an age (36h, 7d, 2w)", s)
}
