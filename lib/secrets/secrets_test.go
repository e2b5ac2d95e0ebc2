package secrets

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"

	"github.com/ctx-tools/ctx/internal/secrettest"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/secrets/verdict"
	"github.com/ctx-tools/ctx/lib/store"
)

func newScanner(t testing.TB) *Scanner {
	t.Helper()
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.init(); err != nil {
		t.Fatal(err)
	}
	return s
}

// plant writes the corpus files under a fresh directory.
func plant(t *testing.T, corpus []secrettest.Secret) string {
	dir := t.TempDir()
	for name, text := range secrettest.Files(corpus) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// logOf returns the execution log of a planted file, imported when it is
// an agent's session, with every content inline.
func logOf(t *testing.T, st *store.Store, dir, name string) *execlog.Log {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	switch name {
	case "cc.jsonl", "codex.jsonl":
		format := claudecode.Name
		if name == "codex.jsonl" {
			format = codex.Name
		}
		data, _, err = formats.Import(format, data, importer.Options{Name: name})
		if err != nil {
			t.Fatal(err)
		}
	}
	l, err := execlog.Parse(data, execlog.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Inline(st); err != nil {
		t.Fatal(err)
	}
	return l
}

// expected lists the secrets planted in each file.
var expected = map[string][]string{
	"cc.jsonl":    {"anthropic", "github", "aws", "stripe", "slack", "openai", "jwt", "postgres-url", "pem", "openssh"},
	"codex.jsonl": {"gitlab", "pem"},
	"files.json":  {"aws", "stripe", "slack", "openai", "jwt", "postgres-url", "pem", "openssh"},
}

// TestCorpus plants every kind of secret in a Claude Code session, a
// Codex session and input files: each is found by its rule, redacted
// everywhere, and appears in no finding and nowhere in the redacted log;
// the redacted log scans clean.
func TestCorpus(t *testing.T) {
	t.Parallel()
	corpus := secrettest.Corpus(7)
	dir := plant(t, corpus)
	st, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sc := newScanner(t)
	for name, want := range expected {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := logOf(t, st, dir, name).JSON()
			if err != nil {
				t.Fatal(err)
			}
			red, rep, err := sc.RedactLog(b)
			if err != nil {
				t.Fatal(err)
			}
			found := map[string]bool{}
			for _, f := range rep.Findings {
				found[f.Rule] = true
			}
			out, _ := json.Marshal(rep)
			for _, w := range want {
				var sec secrettest.Secret
				for _, s := range corpus {
					if s.Name == w {
						sec = s
					}
				}
				if !found[sec.Rule] {
					t.Errorf("%s (%s) not found; findings: %s", w, sec.Rule, out)
				}
			}
			for _, s := range corpus {
				for _, part := range s.Parts() {
					if strings.Contains(string(red), part) {
						t.Errorf("redacted log still holds %s", s.Name)
					}
					if strings.Contains(string(out), part) {
						t.Errorf("report holds %s", s.Name)
					}
				}
			}
			if again, rep2, err := sc.RedactLog(red); err != nil || len(rep2.Findings) > 0 {
				t.Errorf("the redacted log is not clean: %v %+v", err, rep2.Findings)
			} else if string(again) != string(red) {
				t.Errorf("redacting a redacted log changed it")
			}
			if r, ok := manifest.RedactionOf(mustLog(t, red).Metadata); !ok || r.Marks != rep.Marks || r.Marks < len(want) {
				t.Errorf("redaction record %+v %v, want %d marks", r, ok, rep.Marks)
			}
		})
	}
}

func mustLog(t *testing.T, b []byte) *execlog.Log {
	t.Helper()
	l, err := execlog.Parse(b, execlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestScanPack packs the Claude Code session: every object holding a
// secret is reported with its place; the redacted pack scans clean; a
// second scan with the cache reads no object.
func TestScanPack(t *testing.T) {
	t.Parallel()
	corpus := secrettest.Corpus(11)
	dir := plant(t, corpus)
	st, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sc := newScanner(t)
	l := logOf(t, st, dir, "cc.jsonl")
	m, _, err := l.Pack(st)
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	cache := verdict.Open(cacheDir, sc.Version())
	fs, stats, err := sc.ScanPack(st, m, cache)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Scanned != stats.Objects {
		t.Errorf("scanned %d of %d objects", stats.Scanned, stats.Objects)
	}
	var rules []string
	for _, f := range fs {
		if f.Pack != m.Hash || f.Object.IsZero() || f.Path == "" {
			t.Errorf("finding without its place: %+v", f)
		}
		rules = append(rules, f.Rule)
	}
	for _, s := range corpus {
		if slices.Contains(expected["cc.jsonl"], s.Name) && !slices.Contains(rules, s.Rule) {
			t.Errorf("%s not found in the pack", s.Rule)
		}
	}
	b, _ := l.JSON()
	red, _, err := sc.RedactLog(b)
	if err != nil {
		t.Fatal(err)
	}
	rm, _, err := mustLog(t, red).Pack(st)
	if err != nil {
		t.Fatal(err)
	}
	if fs, _, err := sc.ScanPack(st, rm, cache); err != nil || len(fs) > 0 {
		t.Fatalf("redacted pack: %v %+v", err, fs)
	}
	cache.Save()
	again := verdict.Open(cacheDir, sc.Version())
	if !again.PackClean(rm.Hash) || again.PackClean(m.Hash) {
		t.Errorf("pack verdicts: redacted %v, original %v; want true, false", again.PackClean(rm.Hash), again.PackClean(m.Hash))
	}
	// A fork sharing most objects: only its new ones are scanned.
	l2 := mustLog(t, red)
	l2.Steps = l2.Steps[:len(l2.Steps)-1]
	fm, _, err := l2.Pack(st)
	if err != nil {
		t.Fatal(err)
	}
	if _, stats, _ := sc.ScanPack(st, fm, again); stats.Scanned != 1 {
		t.Errorf("fork: scanned %d objects of %d, want 1 (its manifest)", stats.Scanned, stats.Objects)
	}
	// Another rule set trusts none of it.
	other, err := New([]byte("[[allowlists]]\nstopwords = [\"nothing-here\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, stats, _ := other.ScanPack(st, rm, verdict.Open(cacheDir, other.Version())); stats.Scanned != stats.Objects {
		t.Errorf("another rule set trusted the cache")
	}
}

// TestAllowlist: a gitleaks allowlist silences a known false positive,
// and a file defining rules is refused.
func TestAllowlist(t *testing.T) {
	t.Parallel()
	tok := ByName(t, "github")
	text := "token " + tok
	if len(newScanner(t).scan(text)) != 1 {
		t.Fatal("not found without allowlist")
	}
	s, err := New([]byte("[[allowlists]]\ndescription = \"test token\"\nregexes = ['''^" + tok + "$''']\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.init(); err != nil {
		t.Fatal(err)
	}
	if hs := s.scan(text); len(hs) != 0 {
		t.Errorf("allowlisted secret found: %v", hs[0].rule)
	}
	// gitleaks' deprecated [allowlist] table is read too.
	old, err := New([]byte("[allowlist]\ndescription = \"test token\"\nregexes = ['''^" + tok + "$''']\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := old.init(); err != nil {
		t.Fatal(err)
	}
	if hs := old.scan(text); len(hs) != 0 {
		t.Errorf("secret allowlisted by [allowlist] found: %v", hs[0].rule)
	}
	if _, err := New([]byte("[[rules]]\nid = \"x\"\nregex = '''x'''\n")); err == nil {
		t.Error("an allowlist file with rules was accepted")
	}
}

func ByName(t *testing.T, name string) string {
	return secrettest.ByName(secrettest.Corpus(3), name)
}

// TestMarkKeepsLines: a multi-line secret's mark keeps the line count,
// and the same secret gets the same mark in every value.
func TestMarkKeepsLines(t *testing.T) {
	t.Parallel()
	pem := ByName(t, "pem")
	log := `{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"inputs":[{"name":"k","content":` + quote(pem+"tail\n") + `}],"prompts":[{"role":"user","content":` + quote("see "+pem) + `}],"steps":[]}`
	red, rep, err := newScanner(t).RedactLog([]byte(log))
	if err != nil {
		t.Fatal(err)
	}
	l := mustLog(t, red)
	b, _ := l.JSON()
	if rep.Secrets != 1 || rep.Marks != 2 {
		t.Errorf("secrets %d marks %d, want 1 and 2", rep.Secrets, rep.Marks)
	}
	var v struct {
		Inputs []struct{ Content string }
	}
	json.Unmarshal(b, &v)
	if got := strings.Count(v.Inputs[0].Content, "\n"); got != strings.Count(pem+"tail\n", "\n") {
		t.Errorf("lines %d, want %d", got, strings.Count(pem+"tail\n", "\n"))
	}
	if !strings.HasSuffix(v.Inputs[0].Content, "tail\n") {
		t.Errorf("text after the secret changed: %q", v.Inputs[0].Content)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestVersion: the rule-set version names exactly the rules run and the
// gitleaks version built in, so that no verdict outlives a rule change.
func TestVersion(t *testing.T) {
	t.Parallel()
	sum := sha256.New()
	sum.Write([]byte(config.DefaultConfig))
	sum.Write([]byte{0})
	sum.Write(ctxRules)
	if got := hex.EncodeToString(sum.Sum(nil)); got != verdict.Rules {
		t.Errorf("the rules changed: set verdict.Rules to %s", got)
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build information")
	}
	for _, m := range bi.Deps {
		if m.Path == "github.com/zricethezav/gitleaks/v8" && m.Version != "v"+verdict.Gitleaks {
			t.Errorf("gitleaks is %s: set verdict.Gitleaks", m.Version)
		}
	}
	a, _ := New(nil)
	b, _ := New([]byte("[[allowlists]]\nstopwords = [\"x\"]\n"))
	if a.Version() == b.Version() {
		t.Error("an allowlist does not change the version")
	}
}
