package formats_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/formatstest"
)

// lookup returns the format of the name.
func lookup(name string) importer.Format {
	f, ok := formats.Lookup(name)
	if !ok {
		panic("no format " + name)
	}
	return f
}

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
	case claudecode.Name:
		lines(func(r gjson.Result) string {
			typ := r.Get("type").String()
			sub := importer.First(r, "subtype", "data.type", "attachment.type").String()
			if sub == "" {
				return typ
			}
			return typ + "/" + sub
		})
	case codex.Name:
		lines(func(r gjson.Result) string {
			switch typ := r.Get("type").String(); {
			case r.Get("record_type").Exists():
				return "record_type/" + r.Get("record_type").String()
			case typ == "event_msg":
				return typ + "/" + r.Get("payload.type").String()
			case !r.Get("payload").Exists() && importer.IsItem(typ, r):
				return "response_item"
			case !r.Get("payload").Exists():
				return "session_meta"
			default:
				return typ
			}
		})
	case importer.Inspect:
		gjson.GetBytes(data, "samples.#.events|@flatten").ForEach(func(_, e gjson.Result) bool {
			kinds["event/"+e.Get("event").String()]++
			return true
		})
	case importer.LangSmith:
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
	files, _ := filepath.Glob(filepath.Join(sharedtest.FixtureTree(t, "..", formats.Formats()), "*", "*"))
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
		format, err := formats.Detect(base, data)
		if err != nil {
			continue // malformed fixtures
		}
		for kind := range kindsIn(t, format, data) {
			checked++
			if unknownOnPurpose[filepath.Base(filepath.Dir(f))+"/"+base+" "+kind] {
				continue
			}
			if _, ok := importer.KnownKind(lookup(format).Kinds, kind); !ok {
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
	const begin, end = "<!-- record kinds: generated from the formats' Kinds by go test ./lib/formats -run TestRecordKindsDoc -update -->\n", "<!-- end of record kinds -->\n"
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
	if *formatstest.Update {
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
	for _, f := range formats.Formats() {
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

// explain is why records of kind k are skipped, without what the table
// already says: `record type "system" (turn_duration: status output)`
// is "status output".
func explain(k importer.RecordKind) string {
	why := k.Skip
	if open := strings.Index(why, `" (`); open > 0 && strings.HasSuffix(why, ")") {
		why = why[open+3 : len(why)-1]
	}
	if _, sub, ok := strings.Cut(k.Kind, "/"); ok {
		why = strings.TrimPrefix(why, sub+": ")
	}
	return why
}
