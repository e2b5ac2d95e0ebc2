package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/internal/sharedtest"
)

// kindsIn returns the kinds of the records of data, a log of format, as
// Format.Kinds names them, counted from the source: a Claude Code line's
// type (and its system subtype, progress data.type or attachment type),
// a Codex line's type (and its event_msg type), an Inspect event, a
// LangSmith run's run_type. Formats whose records are all of one kind
// (the exchanges, OpenTelemetry spans) give none.
func kindsIn(t *testing.T, format string, data []byte) map[string]int {
	t.Helper()
	kinds := map[string]int{}
	lines := func(fn func(r gjson.Result) string) {
		for _, l := range bytes.Split(data, []byte("\n")) {
			if r := gjson.ParseBytes(l); r.IsObject() {
				kinds[fn(r)]++
			}
		}
	}
	switch format {
	case ClaudeCode:
		lines(func(r gjson.Result) string {
			typ := r.Get("type").String()
			sub := First(r, "subtype", "data.type", "attachment.type").String()
			if sub == "" {
				return typ
			}
			return typ + "/" + sub
		})
	case Codex:
		lines(func(r gjson.Result) string {
			switch typ := r.Get("type").String(); {
			case r.Get("record_type").Exists():
				return "record_type/" + r.Get("record_type").String()
			case typ == "event_msg":
				return typ + "/" + r.Get("payload.type").String()
			case !r.Get("payload").Exists() && isItem(typ, r):
				return "response_item"
			case !r.Get("payload").Exists():
				return "session_meta"
			default:
				return typ
			}
		})
	case Inspect:
		gjson.GetBytes(data, "samples.#.events|@flatten").ForEach(func(_, e gjson.Result) bool {
			kinds["event/"+e.Get("event").String()]++
			return true
		})
	case LangSmith:
		for _, p := range []string{"@this", "post", "patch", "runs"} {
			v := gjson.GetBytes(data, p)
			if v.IsObject() {
				v = gjson.Parse("[" + v.Raw + "]")
			}
			v.ForEach(func(_, r gjson.Result) bool {
				if rt := r.Get("run_type").String(); rt != "" {
					kinds["run/"+rt]++
				}
				return true
			})
		}
	}
	return kinds
}

// unknownOnPurpose are the kinds fixtures hold to test how a kind no
// list knows is read (by file and kind).
var unknownOnPurpose = map[string]bool{
	"codex/shapes.jsonl event_msg/some_new_event": true,
}

// Every kind of record a fixture or a shared sample holds is in its
// format's list, imported or skipped with a reason: a new kind is not
// skipped unnoticed.
func TestRecordKindsListed(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*")
	if dir, err := sharedtest.Path(); err == nil {
		shared, _ := filepath.Glob(filepath.Join(dir, "agent-logs", "*", "*"))
		files = append(files, shared...)
	}
	checked := 0
	for _, f := range files {
		base := filepath.Base(f)
		if strings.Contains(base, ".golden.") || strings.HasSuffix(base, ".md") || strings.Contains(f, "fuzz") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		format, err := Detect(base, data)
		if err != nil {
			continue // malformed fixtures
		}
		for kind := range kindsIn(t, format, data) {
			checked++
			if unknownOnPurpose[filepath.Base(filepath.Dir(f))+"/"+base+" "+kind] {
				continue
			}
			if _, ok := knownKind(lookup(format).Kinds, kind); !ok {
				t.Errorf("%s: %s records of kind %q are in no list of Format.Kinds", f, format, kind)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d kinds checked", checked)
	}
}

// docs/formats.md's table of record kinds is Format.Kinds'.
func TestRecordKindsDoc(t *testing.T) {
	const begin, end = "<!-- record kinds: generated from lib/importer/kinds.go by go test -run TestRecordKindsDoc -update -->\n", "<!-- end of record kinds -->\n"
	path := filepath.Join("..", "..", "docs", "formats.md")
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(readme, []byte(begin)), bytes.Index(readme, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s has no section between %q and %q", path, begin, end)
	}
	want := kindsTable()
	got := string(readme[i+len(begin) : j])
	if got == want {
		return
	}
	if *update {
		out := append(append(append([]byte{}, readme[:i+len(begin)]...), want...), readme[j:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's table of record kinds differs from Format.Kinds (go test -run TestRecordKindsDoc -update):\n%s", path, want)
}

// kindsTable renders Format.Kinds as a Markdown table: per format, the
// kinds imported, then those skipped, grouped by reason.
func kindsTable() string {
	var sb strings.Builder
	sb.WriteString("| format | record kinds | what the import does with them |\n|---|---|---|\n")
	for _, f := range Formats() {
		var order []string
		group := map[string][]string{}
		for _, k := range lookup(f).Kinds {
			what := "imported"
			if k.Skip != "" {
				what = "skipped: " + explain(k)
				if k.Lost {
					what += "; named on stderr as lost when it holds a message, a call, a result, file content or usage"
				}
			}
			if _, ok := group[what]; !ok {
				order = append(order, what)
			}
			group[what] = append(group[what], "`"+k.Kind+"`")
		}
		for _, what := range order {
			sb.WriteString("| " + f + " | " + strings.Join(group[what], ", ") + " | " + strings.ReplaceAll(what, "|", `\|`) + " |\n")
		}
	}
	return sb.String()
}

// A record of a kind no list knows is skipped; when it holds work (a
// message, a call, a result, file content, usage) stderr names it as
// lost, with the count.
func TestUnknownKindHoldingWork(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}`,
		`{"type":"progress","uuid":"p1","sessionId":"s","data":{"type":"teammate_progress","message":{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a note"}]}}}}`,
		`{"type":"progress","uuid":"p2","sessionId":"s","data":{"type":"teammate_progress","message":{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"another"}]}}}}`,
		`{"type":"progress","uuid":"p3","sessionId":"s","data":{"type":"spinner_progress","frame":3}}`,
		`{"type":"future-record","uuid":"f1","sessionId":"s","payload":{"type":"tool_use","id":"t9","name":"Bash","input":{}}}`,
		`{"type":"assistant","uuid":"a1","sessionId":"s","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hello"}]}}`,
	}, "\n")
	_, rep, err := Import(ClaudeCode, []byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`record type "future-record" (not a conversation record; it holds a tool call): 1`,
		`record type "progress" (spinner_progress: a data.type this importer does not know): 1`,
		`record type "progress" (teammate_progress: a data.type this importer does not know; it holds a message): 2`,
	}
	if strings.Join(rep.Reasons, "\n") != strings.Join(want, "\n") {
		t.Errorf("reasons:\n%s\nwant\n%s", strings.Join(rep.Reasons, "\n"), strings.Join(want, "\n"))
	}
	lost := []string{
		`1 record(s) of kind "future-record" hold a tool call, which is not imported: lost from the log`,
		`2 record(s) of kind "progress/teammate_progress" hold a message, which is not imported: lost from the log`,
	}
	for _, w := range lost {
		if !slicesContain(rep.Warnings, w) {
			t.Errorf("warnings %q lack %q", rep.Warnings, w)
		}
	}
}

// explain is why records of kind k are skipped, without what the table
// already says: `record type "system" (turn_duration: status output)`
// is "status output".
func explain(k RecordKind) string {
	why := k.Skip
	if open := strings.Index(why, `" (`); open > 0 && strings.HasSuffix(why, ")") {
		why = why[open+3 : len(why)-1]
	}
	if _, sub, ok := strings.Cut(k.Kind, "/"); ok {
		why = strings.TrimPrefix(why, sub+": ")
	}
	return why
}

// Detect takes a Claude Code transcript whatever record type comes first.
func TestDetectClaudeCodeFirstRecords(t *testing.T) {
	for _, first := range []string{
		`{"type":"permission-mode","permissionMode":"default","sessionId":"s"}`,
		`{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}`,
		`{"type":"queue-operation","operation":"dequeue","timestamp":"2026-01-20T11:57:17.716Z","sessionId":"s"}`,
		`{"type":"summary","summary":"Fixing the build","leafUuid":"u"}`,
		`{"type":"custom-title","customTitle":"mine","sessionId":"s"}`,
		`{"type":"ai-title","aiTitle":"a title","sessionId":"s"}`,
		`{"type":"last-prompt","lastPrompt":"continue","sessionId":"s"}`,
		`{"type":"agent-name","agentName":"reviewer","sessionId":"s"}`,
		`{"type":"progress","data":{"type":"hook_progress"},"uuid":"p","sessionId":"s"}`,
	} {
		data := first + "\n" + `{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n"
		if f, err := Detect("", []byte(data)); f != ClaudeCode {
			t.Errorf("%s: Detect = %q, %v", first, f, err)
		}
	}
}
