package htmlview

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/drift"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/replay"
)

func TestGolden(t *testing.T) {
	t.Parallel()
	got := pages(t)
	for _, name := range []string{"pack", "diff", "replay", "blame"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkPage(t, got[name])
			golden(t, name+".html", got[name])
			// The golden holds the page without its style sheet: a style
			// change rewrites no golden, and the page still embeds it.
			bare := unstyled(got[name])
			if bytes.Count(bare, []byte(styleMarker)) != 1 || bytes.Count(bare, []byte(cspMarker)) != 1 || bytes.Contains(bare, []byte(css)) {
				t.Errorf("%s: the style element or the CSP is not the package's, or is left in the golden", name)
			}
		})
	}
}

// TestDeterministic renders the pages again from a fresh store: the same
// packs give the same bytes.
func TestDeterministic(t *testing.T) {
	t.Parallel()
	a, b := pages(t), pages(t)
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s page differs between two renderings", name)
		}
	}
}

func TestBlamePage(t *testing.T) {
	t.Parallel()
	page := string(pages(t)["blame"])
	for _, bad := range []string{"<script>", "\u202e", "<b>", "gpt-5.4</td>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	for _, want := range []string{
		`&lt;script&gt;alert(1)&lt;/script&gt;`, // the line, as text
		`<span class="esc">\u202e</span>`,       // the RLO, visible
		`<span class="badge">mixed</span>`, `<span class="badge">moved</span>`, `<span class="badge">re-indented</span>`,
		`3 lines by agents, 1 mixed, 1 unknown`, `prompt 1`,
		`ctx-show --human ctx://` + strings.Repeat("ab", 32),
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

func TestPackPage(t *testing.T) {
	t.Parallel()
	page := string(pages(t)["pack"])
	for _, want := range []string{
		`id="step-0"`, `href="#step-3"`,
		`src="data:image/png;base64,`,
		`binary content, 9 B: <code class="cmd">ctx-show --blob sha256:`,
		`over the inline limit: <code class="cmd">ctx-show --blob sha256:`,
		`<span class="dt">&#43;2.2 s</span>`, // 09:00:01 → 09:00:03.250
		`<span class="dt">&#43;1m7s</span>`,
		`non-deterministic`,
		`ctx://`,
		`7: 3 deterministic, 4 not; 1 failed`,
		`<article class="step err sub" id="step-5">`,
		`<span class="badge agent">agent explore-1</span> <a class="from" href="#step-4">from #4</a> <span class="badge error">error</span>`,
		`<p class="errmsg">failed with exit code 1: file not found</p>`,
		`<dt>failed steps</dt><dd class="links"><a href="#step-5">#5</a> </dd>`,
		`<strong>explore-1</strong>: 1 step from <a href="#step-5">#5</a>, started by <a href="#step-4">#4</a>`,
		`<details class="reasoning"><summary>reasoning`,
		`<p class="usage">tokens: input 1200, output 85 · $0.00385</p>`, // gpt-4o: 1,200 × $2.50/M + 85 × $10/M
		`<dt>cost</dt><dd>$0.00385 (computed from usage with LiteLLM`,
		`<span class="idx">part 1</span> <span class="badge">image</span> <span class="meta">image/png</span>`,
		`<span class="badge seen">partly seen: lines 3–5, 9 of 20</span>`,
		`<span class="badge seen">seen by name only: no content</span>`,
		`text/x-python`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("pack page lacks %q", want)
		}
	}
}

func TestDiffPage(t *testing.T) {
	t.Parallel()
	page := string(pages(t)["diff"])
	for _, want := range []string{
		// The inserted grep is the first divergence, found by lcs.
		`<a href="#step-1">first divergence at step 1: added in B</a>`,
		`<div class="pair added" id="step-1">`,
		`<div class="pair changed" id="step-2">`,
		// Summary links to the first entry of each type.
		`<a href="#drift-0">model_drift <b>1</b></a>`,
		`<tr class="changed"><th>model.parameters.temperature</th><td>0</td><td>0.2</td></tr>`,
		`<div class="del">-Rename`, `<div class="add">+Rename`,
		`<tr class="added"><th>summary.md</th>`,
		`ctx-diff --align lcs sha256:`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("diff page lacks %q", want)
		}
	}
	// The page leads with the steps: right after the short header, before
	// the entries of the rest and the model and environment table.
	if !strings.Contains(page, "</header>\n<main>\n<section id=\"steps\">") {
		t.Error("the steps do not follow the header")
	}
	steps, outputs := strings.Index(page, `<section id="steps">`), strings.Index(page, `<section id="outputs">`)
	changes, setup := strings.Index(page, `<section id="changes">`), strings.Index(page, `<section id="setup">`)
	if !(steps < outputs && outputs < changes && changes < setup) {
		t.Errorf("sections at steps %d, outputs %d, changes %d, setup %d: want that order", steps, outputs, changes, setup)
	}
	// A run of unchanged steps is collapsed, one of a single step not.
	if !strings.Contains(page, `<details class="run"><summary>5 unchanged steps: 3–7 (A: 2–6)</summary>`) {
		t.Error("the run of unchanged steps 3–7 is not collapsed")
	}
	if !strings.Contains(page, `<div class="pair same" id="step-0">`) || strings.Count(page, `<details class="run">`) != 1 {
		t.Error("step 0, unchanged, is not a row of its own")
	}
}

func TestReplayPage(t *testing.T) {
	t.Parallel()
	page := string(pages(t)["replay"])
	for _, want := range []string{
		`<p class="banner fid-degraded">1 of 7 steps verified; fidelity <strong>degraded</strong></p>`,
		`<article class="step st-diverged" id="step-2">`,
		`<article class="step st-not_replayed" id="step-3">`,
		`tool grep: recorded version 3.11, replayed with 3.8`,
		`Steps that diverged or failed: <a href="#step-2">#2 diverged</a> </p>`,
		`expected <code>sha256:0000`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("replay page lacks %q", want)
		}
	}
}

func TestVis(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"plain\ttext\n", "plain\ttext\n"},
		{"a\r\nb", "a\r\nb"},
		{"a\rb", `a[\u000d]b`},
		{"\x1b[31mred\x1b[0m", `[\u001b][31mred[\u001b][0m`},
		{"abc\u202edef", `abc[\u202e]def`},
		{"\u200b\u2066x\u2069", `[\u200b\u2066]x[\u2069]`},
		{"tag\U000e0041", `tag[\ue0041]`},
		{"bad\xffutf8", `bad[\xff]utf8`},
		{"\x00", `[\u0000]`},
		{"\u0085next", `[\u0085]next`},
		{"日本語 é", "日本語 é"},
	} {
		var b strings.Builder
		for _, s := range vis(c.in) {
			if s.Esc {
				b.WriteString("[" + s.S + "]")
			} else {
				b.WriteString(s.S)
			}
		}
		if b.String() != c.want {
			t.Errorf("vis(%q) = %q, want %q", c.in, b.String(), c.want)
		}
	}
}

// The XSS corpus: content that would run script, load something, or
// disguise itself if it reached the page as markup or raw characters.
var evil = []string{
	`</pre><script>alert(1)</script><pre>`,
	`<img src=x onerror=alert(1)>`,
	`<a href="javascript:alert(1)">click</a>`,
	`javascript:alert(1)`,
	`" onmouseover="alert(1)`,
	`'><svg onload=alert(1)>`,
	`</style><style>body{display:none}</style>`,
	`</textarea></title><iframe src=//evil.example>`,
	`<meta http-equiv="refresh" content="0;url=https://evil.example">`,
	`<base href="https://evil.example/">`,
	`]]><!-- --><?xml version="1.0"?>&amp;&#x3c;`,
	"invoice\u202egnp.exe",
	"\x1b]0;title\x07\x1b[2J\x1b[31mred",
	"nul\x00byte",
	"bad\xfe\xffbytes",
}

// evilPack puts the corpus in every field a page shows.
func (f *fixture) evilPack(parent bool) *manifest.Manifest {
	m := f.sample()
	all := strings.Join(evil, "\n")
	str := func(s string) string {
		b, _ := jsontext.AppendQuote(nil, strings.ToValidUTF8(s, "?"))
		return string(b)
	}
	m.Model.Identifier = evil[1]
	m.Model.Parameters = jsontext.Value(`{` + str(evil[2]) + `:` + str(evil[0]) + `}`)
	m.SystemPrompt = f.put(all)
	m.Prompts = append(m.Prompts, manifest.Prompt{Role: evil[4], ContentRef: f.put(evil[0])})
	m.Inputs = append(m.Inputs, manifest.File{Name: evil[5], ContentRef: f.put(evil[11]), Size: int64(len(evil[11]))})
	for i, e := range evil {
		v := strings.ToValidUTF8(e, "?") // manifest strings are UTF-8; objects need not be
		m.Steps = append(m.Steps, f.step(len(m.Steps), v, v, `{"cmd":`+str(e)+`}`, e+"\n"+all, i%2 == 0, v))
	}
	m.Outputs = append(m.Outputs, manifest.Output{Name: evil[3], ContentRef: f.put(all), Size: int64(len(all)), Confidence: evil[4], Notes: evil[6]})
	m.Environment = manifest.Environment{OS: evil[7], Runtime: evil[8], ToolVersions: map[string]string{evil[9]: evil[13]},
		Metadata: jsontext.Value(`{"x":` + str(evil[12]) + `}`)}
	// The extended schema's fields.
	m.Steps[5].Agent = evil[1]
	m.Steps[5].Error.Message = evil[0] + evil[11]
	m.Steps[6].ReasoningRef = f.put(all)
	m.Steps[6].OutputParts[0].MediaType = evil[2]
	m.Prompts[1].Parts[0].ContentRef = f.put(all)
	m.Inputs[0].MediaType = evil[6]
	m.Outputs[0].MediaType = evil[7]
	if parent {
		m.Outputs[0].Notes = evil[12]
		m.Environment.ToolVersions[evil[1]] = evil[0]
	}
	return m
}

func TestXSS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	clean := f.pack(f.sample())
	bad := f.pack(f.evilPack(false))
	bad2 := f.pack(f.evilPack(true))
	check := func(name string, page []byte, err error) {
		t.Run(name, func(t *testing.T) {
			if err != nil {
				t.Fatal(err)
			}
			checkPage(t, page)
			// The corpus is there, as text.
			if !bytes.Contains(page, []byte(`&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;`)) {
				t.Error("the script tag is not shown as text")
			}
			if !bytes.Contains(page, []byte(`<span class="esc">\u202e</span>`)) {
				t.Error("the right-to-left override is not shown as an escape")
			}
		})
	}
	page, err := Pack(bad, f.s, Options{})
	check("pack", page, err)
	for _, al := range []drift.Alignment{drift.AlignIndex, drift.AlignLCS} {
		for _, pair := range [][2]*manifest.Manifest{{clean, bad}, {bad, bad2}, {bad2, clean}} {
			r, err := drift.Diff(pair[0], pair[1], drift.StoreObjects(f.s), drift.Options{Align: al})
			if err != nil {
				t.Fatal(err)
			}
			page, err := Diff(pair[0], pair[1], r, al, Options{})
			check("diff", page, err)
		}
	}
	rep := &replay.Report{Pack: bad.Hash.String(), Fidelity: replay.Lost}
	for i, e := range evil {
		rep.Steps = append(rep.Steps, replay.StepResult{Index: len(bad.Steps) - len(evil) + i, Tool: e, Status: replay.Status(e), Reason: e})
		rep.Drift = append(rep.Drift, replay.Drift{Type: e, Tool: e, Name: e, Expected: e, Actual: e, Reason: e})
	}
	page, err = Replay(bad, rep, f.s, Options{})
	check("replay", page, err)
}

var (
	cspMeta   = regexp.MustCompile(`^<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml" lang="en">\n<head>\n<meta charset="utf-8" />\n<meta http-equiv="Content-Security-Policy" content="([^"]*)" />\n`)
	styleElem = regexp.MustCompile(`(?s)<style>(.*?)</style>`)
	dataImage = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$`)
)

// allowed are the elements a page may contain; anything else (script,
// iframe, object, embed, link, base, form, svg, math, a second meta…) is
// content that escaped.
var allowed = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true,
	"header": true, "main": true, "footer": true, "nav": true, "section": true, "article": true,
	"h1": true, "h2": true, "p": true, "div": true, "span": true, "a": true, "code": true, "pre": true,
	"strong": true, "b": true, "br": true, "dl": true, "dt": true, "dd": true, "ul": true, "li": true,
	"details": true, "summary": true, "img": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
}

var allowedAttr = map[string]bool{
	"xmlns": true, "lang": true, "charset": true, "http-equiv": true, "content": true, "name": true,
	"class": true, "id": true, "href": true, "src": true, "alt": true, "title": true,
}

// checkPage asserts what every page must be: well-formed XML (polyglot
// XHTML) that starts with the CSP, whose style sheet hashes to what the
// CSP allows, with only known elements and attributes, links only within
// the page, images only as data: URIs, and no raw control or bidi
// characters.
func checkPage(t *testing.T, page []byte) {
	t.Helper()
	m := cspMeta.FindSubmatch(page)
	if m == nil {
		t.Fatalf("page does not open with the charset and CSP meta elements:\n%.400s", page)
	}
	if got := html.UnescapeString(string(m[1])); got != CSP {
		t.Errorf("CSP is %s, want %s", got, CSP)
	}
	for _, want := range []string{"default-src 'none'", "img-src data:", "style-src 'sha256-"} {
		if !strings.Contains(CSP, want) {
			t.Errorf("CSP lacks %s", want)
		}
	}
	styles := styleElem.FindAllSubmatch(page, -1)
	if len(styles) != 1 {
		t.Fatalf("%d style elements, want 1", len(styles))
	}
	h := sha256.Sum256(styles[0][1])
	if !strings.Contains(CSP, "'sha256-"+base64.StdEncoding.EncodeToString(h[:])+"'") {
		t.Error("the style element's hash is not the one the CSP allows")
	}
	lower := bytes.ToLower(page)
	for _, bad := range []string{"<script", "javascript:", "zgotmplz", "<iframe", "<svg", "<base", "\x1b", "\u202e", "\x00"} {
		if i := bytes.Index(lower, []byte(bad)); i >= 0 && !(bad == "javascript:" && textOnly(page, i)) {
			t.Errorf("page contains %q: …%s…", bad, page[max(0, i-80):min(len(page), i+80)])
		}
	}

	dec := xml.NewDecoder(bytes.NewReader(page))
	dec.Strict = true
	metas := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		el := se.Name.Local
		if !allowed[el] {
			t.Errorf("element <%s> in page", el)
		}
		if el == "meta" {
			metas++
		}
		for _, a := range se.Attr {
			name := strings.ToLower(a.Name.Local)
			switch {
			case !allowedAttr[name] || a.Name.Space != "" && name != "xmlns":
				t.Errorf("attribute %s on <%s>", a.Name.Local, el)
			case name == "href" && !strings.HasPrefix(a.Value, "#"):
				t.Errorf("link leaves the page: href=%q", a.Value)
			case name == "src" && !dataImage.MatchString(a.Value):
				t.Errorf("image not a data: URI of a raster image: src=%.60q", a.Value)
			case name == "http-equiv" && a.Value != "Content-Security-Policy":
				t.Errorf("http-equiv=%q", a.Value)
			}
		}
	}
	if metas != 4 {
		t.Errorf("%d meta elements, want 4", metas)
	}
}

// textOnly reports whether position i of page is in text (between a '>'
// and the next '<'), not inside a tag.
func textOnly(page []byte, i int) bool {
	return bytes.LastIndexByte(page[:i], '>') > bytes.LastIndexByte(page[:i], '<')
}

// TestDiffPageOtherAlignment: a report made with one alignment and shown
// with the other still shows every entry.
func TestDiffPageOtherAlignment(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.pack(f.sample())
	b := f.pack(f.variant(a.Hash))
	r, err := drift.Diff(a, b, drift.StoreObjects(f.s), drift.Options{Align: drift.AlignIndex})
	if err != nil {
		t.Fatal(err)
	}
	page, err := Diff(a, b, r, drift.AlignLCS, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, page)
	for i := range r.Drift {
		if n := bytes.Count(page, []byte(`<div class="entry" id="`+entryID(i)+`">`)); n != 1 {
			t.Errorf("entry %d (%s %s) shown %d times", i, r.Drift[i].Type, r.Drift[i].Path, n)
		}
	}
}

// TestPageBudget: past the page's budget, objects are shown by size and
// hash, in page order, and the same object twice costs once.
func TestPageBudget(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m := f.sample()
	m.Steps = nil
	for i := 0; i < 6; i++ {
		out := strings.Repeat(fmt.Sprintf("step %d line\n", i), 100) // 1,200 bytes
		if i == 3 {
			out = strings.Repeat("step 0 line\n", 100) // the same as step 0
		}
		m.Steps = append(m.Steps, f.step(i, manifest.ToolCall, "read_file", `{}`, out, true, ""))
	}
	m.Inputs, m.Outputs, m.Prompts, m.SystemPrompt = nil, nil, nil, digest.Digest{}
	pk := f.pack(m)
	page, err := Pack(pk, f.s, Options{MaxTotal: 3000})
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, page)
	// Steps 0, 1 and 3 (step 0's object again) fit; 2, 4 and 5 do not.
	for i := 0; i < 6; i++ {
		shown := bytes.Contains(page, []byte(fmt.Sprintf("step %d line\nstep %d line", i, i)))
		if want := i <= 1; shown != want {
			t.Errorf("step %d content shown: %v, want %v", i, shown, want)
		}
	}
	if n := bytes.Count(page, []byte("the page has shown all the content it holds")); n != 3 {
		t.Errorf("%d objects past the budget, want 3", n)
	}
}

// An exact replay that left steps unverified says how many it verified
// first and is not shown as a success.
func TestReplayPagePartial(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.pack(f.sample())
	r := replayReport(a)
	r.Fidelity = replay.Exact
	r.Steps = r.Steps[:2]
	page, err := Replay(a, r, f.s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `<p class="banner fid-partial">1 of 7 steps verified; fidelity <strong>exact</strong></p>`
	if !strings.Contains(string(page), want) {
		t.Errorf("page lacks %s", want)
	}
}

// A diverged step whose replayed output the replay kept shows the diff of
// the recording and that output; the text is escaped.
func TestReplayPageActualDiff(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m := f.pack(f.sample())
	got := f.put("def calc(xs):\n    return <b>0</b>\n")
	rep := replayReport(m)
	rep.Steps[0] = replay.StepResult{Index: 0, Tool: "read_file", Deterministic: true, Status: replay.Diverged,
		Expected: m.Steps[0].OutputRef.String(), Actual: got.String(), ActualRef: got.String()}
	page, err := Replay(m, rep, f.s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<summary>what the replay produced, against the recording</summary>`,
		`+    return &lt;b&gt;0&lt;/b&gt;`,
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("replay page lacks %q", want)
		}
	}
}
