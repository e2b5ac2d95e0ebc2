package secrets

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/secrets/verdict"
)

// Report is what redacting a log found and did.
type Report struct {
	// Findings are the places secrets were, in log order.
	Findings []Finding
	// Secrets counts the distinct secrets replaced.
	Secrets int
	// Marks counts the marks the redacted log holds, those an earlier
	// redaction left included.
	Marks int
}

// RedactLog returns the execution log (docs/design.md §5) b with every secret in
// every string value, decoded (a *_base64 member's bytes too), replaced
// by its mark, and its top-level metadata's "redaction" record set.
// Everything else keeps its bytes. Content given by path or content_ref
// is not read: inline it first (execlog.Log.Inline). A secret the scanner
// still finds in the result fails the redaction rather than pass.
func (s *Scanner) RedactLog(b []byte) ([]byte, Report, error) {
	var rep Report
	if err := s.init(); err != nil {
		return nil, rep, err
	}
	var vals []stringValue
	if err := walk(b, func(v stringValue) { vals = append(vals, v) }); err != nil {
		return nil, rep, fmt.Errorf("reading the log: %w", err)
	}
	rules := map[string]string{} // secret → rule
	var order []hit
	var at []int                     // the value each finding is in
	dirty := make([]bool, len(vals)) // the values a secret was found in
	for k, v := range vals {
		path := v.path()
		for _, h := range s.scan(v.text) {
			dirty[k] = true
			lines := occurrences(v.text, h.secret)
			if len(lines) == 0 {
				lines = []int{0}
			}
			for _, ln := range lines {
				rep.Findings = append(rep.Findings, Finding{Rule: h.rule, Path: path, Line: ln, Key: v.key, Mark: Mark(h.rule, h.secret)})
				at = append(at, k)
			}
			if _, ok := rules[h.secret]; !ok {
				rules[h.secret] = h.rule
				order = append(order, h)
			}
		}
	}
	rep.Secrets = len(order)
	// A secret that is a member name is in the paths of its member and
	// of what the member holds: shown as its mark.
	for i := range rep.Findings {
		rep.Findings[i].Path = vals[at[i]].maskedPath(order)
	}

	var out bytes.Buffer
	out.Grow(len(b))
	last := 0
	for k, v := range vals {
		if len(order) == 0 {
			break
		}
		red := redactText(v.text, order)
		if red == v.text && !dirty[k] {
			continue
		}
		// A value a secret was found in is scanned again, rewritten or
		// not: one the rewrite missed fails the redaction.
		if again := s.scan(red); len(again) > 0 {
			return nil, rep, fmt.Errorf("%s: a %s secret is still there after redaction (held in a form ctx cannot rewrite); edit it out with ctx-fork | jq | ctx-pack", v.maskedPath(order), again[0].rule)
		}
		if v.base64 {
			red = base64.StdEncoding.EncodeToString([]byte(red))
		}
		q, err := jsontext.AppendQuote(nil, red)
		if err != nil {
			return nil, rep, fmt.Errorf("%s: %w", v.maskedPath(order), err)
		}
		out.Write(b[last:v.start])
		out.Write(q)
		last = v.end
	}
	out.Write(b[last:])
	red := out.Bytes()

	if err := walk(red, func(v stringValue) { rep.Marks += CountMarks(v.text) }); err != nil {
		return nil, rep, fmt.Errorf("reading the redacted log: %w", err)
	}
	red, err := setRecord(red, manifest.Redaction{Marks: rep.Marks, Scanner: "gitleaks " + verdict.Gitleaks})
	if err != nil {
		return nil, rep, err
	}
	return red, rep, nil
}

// setRecord sets metadata.redaction of the log b to r, keeping the
// metadata's other members.
func setRecord(b []byte, r manifest.Redaction) ([]byte, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, fmt.Errorf("reading the log: not a JSON object")
	}
	rec, err := json.Marshal(r, json.Deterministic(true))
	if err != nil {
		return nil, err
	}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		name := tok.String()
		raw, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		if name != "metadata" {
			continue
		}
		end := int(dec.InputOffset())
		start := end - len(raw)
		var meta map[string]jsontext.Value
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
		if meta == nil {
			meta = map[string]jsontext.Value{}
		}
		meta[manifest.RedactionKey] = rec
		nm, err := json.Marshal(meta, json.Deterministic(true))
		if err != nil {
			return nil, err
		}
		return slices.Concat(b[:start], nm, b[end:]), nil
	}
	// No metadata yet: it goes first, the log's members keeping their
	// bytes after it.
	open := bytes.IndexByte(b, '{')
	member := `"metadata":{"` + manifest.RedactionKey + `":` + string(rec) + `}`
	rest := bytes.TrimLeft(b[open+1:], " \t\r\n")
	if len(rest) > 0 && rest[0] != '}' {
		member += ","
	}
	return slices.Concat(b[:open+1], []byte(member), b[open+1:]), nil
}
