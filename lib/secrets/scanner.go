package secrets

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/detect/codec"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/report"

	"github.com/ctx-tools/ctx/lib/secrets/verdict"
)

// maxDecodeDepth is gitleaks' own default (--max-decode-depth): base64,
// hex and percent-encoded text is decoded up to five times and scanned
// again.
const maxDecodeDepth = 5

// Scanner finds secrets with gitleaks' default rules, plus the
// allowlists of an optional gitleaks configuration file. It is safe for
// concurrent use. Its rules are compiled on first use, so that a command
// that finds everything already known clean (Cache) never pays for them.
type Scanner struct {
	allowlist *config.ViperConfig
	version   string

	once sync.Once
	all  *detect.Detector // every rule
	det  *detect.Detector // every rule but the generic one
	gen  *detect.Detector // the generic rule alone
	win  *windows         // every rule, where it may match
	err  error
}

// gitleaks keeps its logger and its configuration reader in package
// variables: silence the one (its trace messages carry the secrets
// themselves) and read with the other once at a time.
var gitleaksMu sync.Mutex

// New returns a scanner with gitleaks' default rules. allowlist, when not
// nil, is a gitleaks configuration (TOML) whose [allowlist] and
// [[allowlists]] tables (with targetRules, regexes, stopwords, paths,
// condition…) are added to the default ones, for known false positives;
// it may say [extend] useDefault = true, and may not define rules.
func New(allowlist []byte) (*Scanner, error) {
	s := &Scanner{}
	if allowlist != nil {
		user, err := readConfig(allowlist)
		if err != nil {
			return nil, fmt.Errorf("reading the allowlist: %w", err)
		}
		if len(user.Rules) > 0 {
			return nil, fmt.Errorf("reading the allowlist: it defines %d rule(s); an allowlist file holds only [[allowlists]] (gitleaks' default rules always apply)", len(user.Rules))
		}
		if user.Extend.Path != "" || user.Extend.URL != "" || len(user.Extend.DisabledRules) > 0 {
			return nil, fmt.Errorf("reading the allowlist: [extend] may only say useDefault = true")
		}
		s.allowlist = user
	}
	s.version = verdict.Version(allowlist)
	return s, nil
}

// init compiles the rules, once.
func (s *Scanner) init() error {
	s.once.Do(func() { s.err = s.build() })
	return s.err
}

// quietGitleaks silences gitleaks' package-level logger, once: every
// detection reads it, so it is written before any scanner is built and
// never again (a second write would race with another scanner's reads).
var quietGitleaks sync.Once

func (s *Scanner) build() error {
	gitleaksMu.Lock()
	defer gitleaksMu.Unlock()
	quietGitleaks.Do(func() { logging.Logger = zerolog.Nop() })

	base, err := readConfig([]byte(config.DefaultConfig))
	if err != nil {
		return fmt.Errorf("reading gitleaks' default rules: %w", err)
	}
	own, err := readConfig(ctxRules)
	if err != nil {
		return fmt.Errorf("reading ctx's rules: %w", err)
	}
	base.Rules = append(base.Rules, own.Rules...)
	if s.allowlist != nil {
		base.Allowlists = append(base.Allowlists, s.allowlist.Allowlists...)
	}
	cfg, err := base.Translate()
	if err != nil {
		return fmt.Errorf("loading gitleaks rules: %w", err)
	}
	// The generic rule is by far the costliest (its regular expression
	// tries each position of a text that holds one of its keywords), and
	// can only match around an assignment (=, :, >, |, ,). A text holding
	// none of those characters is scanned without it, and with it alone
	// only when a decoding gitleaks would scan holds one (mayAssign); any
	// other text by every rule at once. The results are gitleaks' own
	// (hidden applies its rule that a specific finding hides a generic
	// one across the two detectors).
	s.all = detect.NewDetector(cfg)
	s.det = detect.NewDetector(only(cfg, func(id string) bool { return id != genericRule }))
	s.gen = detect.NewDetector(only(cfg, func(id string) bool { return id == genericRule }))
	for _, d := range []*detect.Detector{s.all, s.det, s.gen} {
		d.MaxDecodeDepth = maxDecodeDepth
	}
	s.win = newWindows(cfg)
	return nil
}

// only returns cfg with the rules keep says yes to, and their keywords.
func only(cfg config.Config, keep func(id string) bool) config.Config {
	out := cfg
	out.Rules = map[string]config.Rule{}
	out.Keywords = map[string]struct{}{}
	out.OrderedRules = nil
	for _, id := range cfg.OrderedRules {
		r, ok := cfg.Rules[id]
		if !ok || !keep(id) {
			continue
		}
		out.Rules[id] = r
		out.OrderedRules = append(out.OrderedRules, id)
		for _, k := range r.Keywords {
			out.Keywords[strings.ToLower(k)] = struct{}{}
		}
	}
	return out
}

// assignChars are the characters one of which the generic rule's match
// must hold: its assignment operators (=, >, :=, ||, :, =>, ?=, ,).
const assignChars = "=>:|,"

// mayAssign reports whether any of the decodings of text gitleaks'
// detector would scan (base64, hex, percent-encoding, up to
// maxDecodeDepth levels) holds one of assignChars: where neither text
// nor they do, the generic rule cannot match.
func mayAssign(text string) bool {
	dec := codec.NewDecoder()
	var segs []*codec.EncodedSegment
	for range maxDecodeDepth {
		text, segs = dec.Decode(text, segs)
		if len(segs) == 0 {
			return false
		}
		if strings.ContainsAny(text, assignChars) {
			return true
		}
	}
	return false
}

// ctxRules is the rule ctx adds to gitleaks' own (ctx.toml says why).
//
//go:embed ctx.toml
var ctxRules []byte

// readConfig reads a gitleaks TOML configuration with a viper of its own,
// its deprecated [allowlist] table moved into [[allowlists]].
func readConfig(b []byte) (*config.ViperConfig, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(bytes.NewReader(b)); err != nil {
		return nil, err
	}
	// The deprecated table is moved as gitleaks' Translate moves it, but
	// before: the allowlists are added to the default rules' here.
	if settings := v.AllSettings(); settings["allowlist"] != nil {
		if settings["allowlists"] != nil {
			return nil, fmt.Errorf("[allowlist] is deprecated, it cannot be used alongside [[allowlists]]")
		}
		settings["allowlists"] = []any{settings["allowlist"]}
		delete(settings, "allowlist")
		v = viper.New()
		if err := v.MergeConfigMap(settings); err != nil {
			return nil, err
		}
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, err
	}
	vc.Extend = config.Extend{}
	return &vc, nil
}

// Version names the rule set (verdict.Version): a verdict remembered for
// one version says nothing about another.
func (s *Scanner) Version() string { return s.version }

// hit is one secret found in a text: the rule that found it and the
// secret's own text. It never leaves this package.
type hit struct {
	rule   string
	secret string
}

// genericRule is gitleaks' catch-all; a secret a specific rule also
// found is named by the specific rule.
const genericRule = "generic-api-key"

// scan returns the distinct secrets in text, in the order of the rule
// that found each and then of the secret, each once. Text that is a JSON
// document is scanned a second time with its strings decoded, since an
// escaped line break (\n) hides a key from the rules that look for one.
// A binary text (isBinary) is scanned for the printable text it holds; a
// large one in chunks (chunks), in parallel.
func (s *Scanner) scan(text string) []hit {
	if isBinary(text) {
		text = printable(text)
	}
	hits := each(text, s.detect)
	if strings.Contains(text, `\`) && looksJSON(text) {
		b := []byte(text)
		if jsontext.Value(b).IsValid() {
			// Only strings JSON escaped (\n, \/, \u0041…) can hide a
			// secret from the raw pass.
			walk(b, func(v stringValue) {
				if bytes.IndexByte(b[v.start:v.end], '\\') >= 0 {
					hits = append(hits, each(v.text, s.detect)...)
				}
			})
		}
	}
	return dedupe(hits)
}

// detect runs the rules over t (a chunk), each where it may match
// (windows), finding what detectWhole finds.
func (s *Scanner) detect(t string) []hit {
	found, ok := s.win.find(t)
	if !ok {
		return s.detectWhole(t)
	}
	return kept(t, found)
}

// detectWhole runs the rules over all of t: the generic rule only where
// it may match (mayAssign).
func (s *Scanner) detectWhole(t string) []hit {
	var found []report.Finding
	if strings.ContainsAny(t, assignChars) {
		found = s.all.DetectString(t)
	} else {
		found = s.det.DetectString(t)
		if mayAssign(t) {
			found = append(found, s.gen.DetectString(t)...)
		}
	}
	return kept(t, found)
}

// kept are the secrets of the findings in t that are reported: not in a
// mark, not hidden by a specific rule's.
func kept(t string, found []report.Finding) []hit {
	var hits []hit
	for _, f := range found {
		if f.Secret == "" || inMark(t, f.Secret) || hidden(f, found) {
			continue
		}
		hits = append(hits, hit{rule: f.RuleID, secret: f.Secret})
	}
	return hits
}

// hidden applies gitleaks' rule (detect.filter) that a generic finding is
// dropped where a specific rule found, on the same line, a secret holding
// it: it applies within one detector, and the generic rule has its own.
func hidden(f report.Finding, all []report.Finding) bool {
	if !strings.Contains(strings.ToLower(f.RuleID), "generic") {
		return false
	}
	for _, o := range all {
		if o.StartLine == f.StartLine && o.RuleID != f.RuleID && strings.Contains(o.Secret, f.Secret) &&
			!strings.Contains(strings.ToLower(o.RuleID), "generic") {
			return true
		}
	}
	return false
}

// dedupe keeps each secret once, named by a specific rule rather than the
// generic one, else by the first rule id.
func dedupe(hits []hit) []hit {
	rank := func(h hit) int {
		if h.rule == genericRule {
			return 1
		}
		return 0
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(strings.Compare(a.secret, b.secret), cmp.Compare(rank(a), rank(b)), strings.Compare(a.rule, b.rule))
	})
	hits = slices.CompactFunc(hits, func(a, b hit) bool { return a.secret == b.secret })
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(strings.Compare(a.rule, b.rule), strings.Compare(a.secret, b.secret))
	})
	return hits
}

// Mark is what replaces a secret: [REDACTED:<rule>:<first 8 hex of the
// secret's SHA-256>], the same for the same secret everywhere.
func Mark(rule, secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return "[REDACTED:" + rule + ":" + hex.EncodeToString(sum[:4]) + "]"
}

// markPattern matches a mark.
var markPattern = regexp.MustCompile(`\[REDACTED:[a-z0-9][a-z0-9._-]*:[0-9a-f]{8}\]`)

// inMark reports whether every place secret occurs in t lies inside a
// mark: a rule that matched a mark's own letters found nothing.
func inMark(t, secret string) bool {
	if !strings.Contains(t, "[REDACTED:") {
		return false
	}
	marks := markPattern.FindAllStringIndex(t, -1)
	for off := 0; ; {
		i := strings.Index(t[off:], secret)
		if i < 0 {
			return true
		}
		start, end := off+i, off+i+len(secret)
		if !slices.ContainsFunc(marks, func(m []int) bool { return m[0] <= start && end <= m[1] }) {
			return false
		}
		off = start + 1
	}
}

// CountMarks returns how many marks text holds.
func CountMarks(text string) int {
	if !strings.Contains(text, "[REDACTED:") {
		return 0
	}
	return len(markPattern.FindAllStringIndex(text, -1))
}

// looksJSON reports whether text may be a JSON object or array: it
// starts as one (whether it is valid is for the caller to check).
func looksJSON(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	return strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")
}

// Load returns a scanner with the allowlist of the gitleaks configuration
// file at path, or with none when path is "".
func Load(path string) (*Scanner, error) {
	if path == "" {
		return New(nil)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the allowlist: %w", err)
	}
	s, err := New(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
