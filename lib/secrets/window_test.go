package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/secrettest"
	"github.com/ctx-tools/ctx/internal/sharedtest"
)

// sameAsWhole checks that the windowed scan of text finds what running
// every rule over every chunk whole (detectWhole, gitleaks' detector as
// it is) finds, and returns that.
func sameAsWhole(t *testing.T, sc *Scanner, name, text string) []hit {
	t.Helper()
	got := dedupe(each(text, sc.detect))
	want := dedupe(each(text, sc.detectWhole))
	if !slices.Equal(got, want) {
		t.Errorf("%s (%d bytes): windowed scan finds %s, whole scan %s", name, len(text), rules(got), rules(want))
	}
	return want
}

// rules names hits by rule and mark, never by value.
func rules(hs []hit) string {
	var s []string
	for _, h := range hs {
		s = append(s, Mark(h.rule, h.secret))
	}
	return fmt.Sprint(s)
}

// planted returns the ways a secret is written in a text: bare, after a
// key, quoted in JSON, JSON-escaped, base64-, hex- and percent-encoded.
func planted(s secrettest.Secret, r *rand.Rand) []string {
	v := s.Value
	return []string{
		v,
		"api_key = " + v,
		`{"token": ` + strconv.Quote(v) + `}`,
		"export SECRET_TOKEN='" + v + "';",
		strings.ReplaceAll(strconv.Quote(v), "/", `\/`),
		"auth: " + base64.StdEncoding.EncodeToString([]byte("password="+v)),
		"x=" + hex.EncodeToString([]byte("secret: "+v)),
		"https://example.com/?q=" + url.QueryEscape("token="+v) + "&p=%20",
		strings.Repeat("k", r.IntN(60)) + "key" + strings.Repeat(" ", r.IntN(4)) + ":\n\t" + v + "\n",
	}
}

// TestWindowsSameFindings: on the repository's secret corpus planted in
// every form in generated logs and the shared sessions (large texts,
// many chunks, secrets across chunk cuts), the windowed scan finds
// exactly what the whole scan finds, and finds the planted secrets.
func TestWindowsSameFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("scans megabytes with every rule on every chunk")
	}
	sc := newScanner(t)
	r := rand.New(rand.NewPCG(3, 5))
	bases := map[string]string{"log": logText(400 << 10)}
	if sharedAvailable() {
		bases["shared"] = sharedText(t, 400<<10)
	}
	for name, base := range bases {
		for _, seed := range []uint64{1, 2} {
			var b strings.Builder
			last := 0
			cuts := []int{}
			for range 30 {
				cuts = append(cuts, r.IntN(len(base)))
			}
			// Secrets across the chunks' cuts too.
			for _, c := range chunks(base) {
				if len(c) < len(base) {
					cuts = append(cuts, strings.Index(base, c)+len(c)-chunkOverlap/2)
				}
			}
			slices.Sort(cuts)
			corpus := secrettest.Corpus(seed)
			for i, c := range cuts {
				b.WriteString(base[last:c])
				forms := planted(corpus[i%len(corpus)], r)
				b.WriteString(forms[r.IntN(len(forms))])
				last = c
			}
			b.WriteString(base[last:])
			found := sameAsWhole(t, sc, fmt.Sprintf("%s seed %d", name, seed), b.String())
			if len(found) < len(corpus)/2 {
				t.Errorf("%s seed %d: %d secrets found, the planting failed", name, seed, len(found))
			}
		}
	}
	// Each form alone, in a short text, at its edges too.
	for _, s := range secrettest.Corpus(4) {
		for i, f := range planted(s, r) {
			for _, text := range []string{f, "x\n" + f + "\ny", logText(3000) + f + logText(2000)} {
				sameAsWhole(t, sc, fmt.Sprintf("%s form %d", s.Name, i), text)
			}
		}
	}
}

// sharedAvailable reports whether the shared agent sessions are here.
func sharedAvailable() bool {
	root, err := sharedtest.Path()
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(root, "agent-logs"))
	return err == nil
}

// TestWindowsSharedSessions: each shared session file, as text, is
// scanned windowed as it is whole.
func TestWindowsSharedSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("scans 512 KiB with every rule on every chunk")
	}
	text := sharedText(t, 512<<10) // skips when the shared data is absent
	sameAsWhole(t, newScanner(t), "shared sessions", text)
}

// FuzzWindows: whatever the text, the windowed scan finds what the whole
// scan finds.
func FuzzWindows(f *testing.F) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, s := range secrettest.Corpus(6) {
		for _, p := range planted(s, r) {
			f.Add(p)
		}
	}
	f.Add("password=Zm9vYmFyYmF6cXV4MTIzNDU2\ngitleaks:allow")
	f.Add("import {a} from 'b' api_key=abcdefghij1234567890")
	f.Add("\u212aey: abcdefghijklmnop1234")
	sc := newScanner(f)
	f.Fuzz(func(t *testing.T, text string) {
		got := dedupe(sc.detect(text))
		want := dedupe(sc.detectWhole(text))
		if !slices.Equal(got, want) {
			t.Errorf("windowed scan finds %s, whole scan %s", rules(got), rules(want))
		}
	})
}

// TestWindowsPlanned: the rules that run on windows are most of them,
// the generic rule among them; a rule that is not runs whole.
func TestWindowsPlanned(t *testing.T) {
	sc := newScanner(t)
	n := len(sc.all.Config.Rules)
	if len(sc.win.plans) < n*3/4 {
		t.Errorf("%d of %d rules windowed", len(sc.win.plans), n)
	}
	if !slices.ContainsFunc(sc.win.plans, func(p rulePlan) bool { return p.id == genericRule }) {
		t.Errorf("the generic rule is not windowed")
	}
	for _, p := range sc.win.plans {
		if len(p.alts) == 0 {
			t.Errorf("%s: no reach", p.id)
		}
	}
}

// TestWindowsWholeLine: what gitleaks looks for in a finding's whole
// line (gitleaks:allow, the generic rule's allowlist of import lines)
// counts however far along a long line it is from the secret.
func TestWindowsWholeLine(t *testing.T) {
	sc := newScanner(t)
	secret := `config api_key = "Q7vL4pR8sT1wYZx9fK2m" `
	far := strings.Repeat("word ", 2000)
	bare := sameAsWhole(t, sc, "bare", "x\n"+secret+far+"\ny\n")
	if len(bare) == 0 {
		t.Fatal("the generic rule finds nothing in the bare line")
	}
	for _, tail := range []string{"import {a} from 'b'", "# gitleaks:allow"} {
		if got := sameAsWhole(t, sc, tail, "x\n"+secret+far+tail+"\ny\n"); len(got) != 0 {
			t.Errorf("%q at the end of the line: found %s, want nothing", tail, rules(got))
		}
		// On the next line it allows nothing.
		if got := sameAsWhole(t, sc, tail+" below", "x\n"+secret+far+"\n"+tail+"\ny\n"); len(got) == 0 {
			t.Errorf("%q on the next line: found nothing", tail)
		}
	}
}

// TestMonotone: an expression asserting nothing about where a text, a
// line or a word begins or ends is monotone, whatever its classes hold.
func TestMonotone(t *testing.T) {
	for expr, want := range map[string]bool{
		`import[ \t]+{[ \t\w,]+}[ \t]+from[ \t]+['"][^'"]+['"]`: true,
		`--mount=type=secret,`: true,
		`^[a-z]+`:              false,
		`foo$`:                 false,
		`(?m)^foo`:             false,
		`\bkey`:                false,
		`[$^]`:                 true,
	} {
		if got := monotone(expr); got != want {
			t.Errorf("monotone(%q) = %v", expr, got)
		}
	}
	if newScanner(t).win.allLines {
		t.Error("gitleaks' default rules' line allowlists taken for not monotone")
	}
}
