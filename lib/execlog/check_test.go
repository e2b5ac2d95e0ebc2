package execlog

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// validLog is a log built in memory that uses every field.
func validLog() *Log {
	one, neg, n := 1, int64(-1), int64(3)
	return &Log{
		Model:        manifest.Model{Identifier: "m", Parameters: jsontext.Value(`{ "t" : 1 }`)},
		SystemPrompt: Text("s"),
		Prompts: []Prompt{
			{Role: "user", Content: Quoted([]byte(`"a\u00e9\n"`))},
			{Role: "user", Parts: []Part{{Type: manifest.PartText, Content: Text("t")}, {Type: manifest.PartImage, MediaType: "image/png", Content: Base64("AAE=")}}},
		},
		Inputs: []File{
			{Name: "a/b.txt", Content: Text("b")},
			{Name: "p.txt", Seen: manifest.SeenPartial, Lines: [][2]int64{{1, 1}, {3, 3}}, TotalLines: 4, Content: Text("1\n3\n")},
			{Name: "n", Seen: manifest.SeenName},
		},
		Steps: []Step{
			{Index: 0, Type: manifest.LLMCall, Output: Text("o"), Reasoning: Bytes([]byte{0xff}), Timestamp: "2026-01-02T03:04:05Z", Metadata: jsontext.Value(`{"b":1,"a":2}`)},
			{Index: 1, Type: manifest.ToolCall, Tool: "Read", Parameters: jsontext.Value(`[1, "x"]`), Agent: "sub", Error: &manifest.StepError{ExitCode: &neg}},
			{Index: 2, Type: manifest.ToolCall, Tool: "t", Agent: "sub", ParentStep: &one, OutputParts: []Part{{Type: manifest.PartDocument, MediaType: "application/pdf", Content: Text("%PDF")}}, Usage: &manifest.Usage{InputTokens: &n}},
		},
		Outputs:     []Output{{Name: "o.md", Content: Text("x"), Confidence: "high"}},
		Environment: manifest.Environment{OS: "linux", ToolVersions: map[string]string{"t": "1"}, Metadata: jsontext.Value(`{}`)},
		Metadata:    jsontext.Value(`{"k":"v"}`),
	}
}

// A log built in memory that Check refuses, Parse refuses printed, at the
// same places; one it accepts packs as its printed form does.
func TestCheckIsParse(t *testing.T) {
	t.Parallel()
	one, neg := 1, int64(-1)
	for _, tc := range []struct {
		name  string
		fault func(l *Log)
	}{
		{"valid", func(l *Log) {}},
		{"no created, no timestamps", func(l *Log) { l.Steps[0].Timestamp = "" }},
		{"created", func(l *Log) { l.Created = "yesterday" }},
		{"identifier", func(l *Log) { l.Model.Identifier = "" }},
		{"model parameters", func(l *Log) { l.Model.Parameters = jsontext.Value(`[1]`) }},
		{"role", func(l *Log) { l.Prompts[0].Role = "" }},
		{"prompt content", func(l *Log) { l.Prompts[0].Content = nil }},
		{"prompt parts and content", func(l *Log) { l.Prompts[1].Content = Text("x") }},
		{"no parts", func(l *Log) { l.Prompts[1].Parts = []Part{} }},
		{"part type", func(l *Log) { l.Prompts[1].Parts[0].Type = "video" }},
		{"part content", func(l *Log) { l.Prompts[1].Parts[1].Content = nil }},
		{"media type", func(l *Log) { l.Prompts[1].Parts[1].MediaType = "png" }},
		{"base64", func(l *Log) { l.Prompts[1].Parts[1].Content = Base64("A") }},
		{"input name", func(l *Log) { l.Inputs[0].Name = "../x" }},
		{"input names", func(l *Log) { l.Inputs[2].Name = "a/b.txt" }},
		{"input directory", func(l *Log) { l.Inputs[2].Name = "a" }},
		{"seen", func(l *Log) { l.Inputs[1].Lines = [][2]int64{{2, 1}} }},
		{"total lines", func(l *Log) { l.Inputs[1].TotalLines = -2 }},
		{"seen by name", func(l *Log) { l.Inputs[2].Content = Text("x") }},
		{"input content", func(l *Log) { l.Inputs[0].Content = nil }},
		{"index", func(l *Log) { l.Steps[1].Index = 7 }},
		{"step type", func(l *Log) { l.Steps[0].Type = "thought" }},
		{"no step type", func(l *Log) { l.Steps[0].Type = "" }},
		{"tool", func(l *Log) { l.Steps[1].Tool = "" }},
		{"parent step", func(l *Log) { l.Steps[1].ParentStep = &one }},
		{"output and parts", func(l *Log) { l.Steps[2].Output = Text("x") }},
		{"usage", func(l *Log) { l.Steps[2].Usage.OutputTokens = &neg }},
		{"timestamp", func(l *Log) { l.Steps[0].Timestamp = "2026-01-02" }},
		{"step metadata", func(l *Log) { l.Steps[0].Metadata = jsontext.Value(`"x"`) }},
		{"output names", func(l *Log) { l.Outputs = append(l.Outputs, Output{Name: "o.md", Content: Text("y")}) }},
		{"output content", func(l *Log) { l.Outputs[0].Content = nil }},
		{"confidence", func(l *Log) { l.Outputs[0].Confidence = "sure" }},
		{"environment metadata", func(l *Log) { l.Environment.Metadata = jsontext.Value(`[]`) }},
		{"metadata", func(l *Log) { l.Metadata = jsontext.Value(`1`) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := validLog()
			tc.fault(l)
			if err := l.Canonical(); err != nil {
				t.Fatal(err)
			}
			b, err := l.JSON()
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{SourceDateEpoch: "1767225600"}
			parsed, perr := Parse(b, opts)
			cerr := l.Check(opts)
			if got, want := paths(t, cerr), paths(t, perr); !slices.Equal(got, want) {
				t.Fatalf("Check: %v\nParse: %v\n%s", cerr, perr, b)
			}
			if cerr != nil {
				return
			}
			if !slices.Equal(l.Warnings, parsed.Warnings) || l.Created != parsed.Created {
				t.Fatalf("Check completed created %q, warnings %q; Parse %q, %q", l.Created, l.Warnings, parsed.Created, parsed.Warnings)
			}
			got, err := l.Hash(nil)
			if err != nil {
				t.Fatal(err)
			}
			if want, err := parsed.Hash(nil); err != nil || got != want {
				t.Fatalf("checked log hashes to %s, printed and parsed to %s (%v)", got, want, err)
			}
		})
	}
}

// paths returns each problem of err as "path: message", sorted.
func paths(t *testing.T, err error) []string {
	if err == nil {
		return nil
	}
	var probs Problems
	if !errors.As(err, &probs) {
		t.Fatalf("%v is not Problems", err)
	}
	var out []string
	for _, p := range probs {
		out = append(out, p.Path.String()+": "+p.Msg)
	}
	slices.Sort(out)
	return out
}

// Canonical reports what JSON cannot print with JSON's own error, naming
// the value; it leaves the log in the form parsing it printed gives.
func TestCanonical(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault func(l *Log)
		want  string
	}{
		{"duplicate member", func(l *Log) { l.Steps[0].Metadata = jsontext.Value(`{"a":1,"a":2}`) }, `encoding log: steps[0].metadata.a: duplicate object member name`},
		{"lone surrogate", func(l *Log) { l.Steps[1].Output = Quoted([]byte(`"x\ud800"`)) }, `encoding log: steps[1].output: `},
		{"invalid UTF-8 literal", func(l *Log) { l.Prompts[0].Content = Quoted([]byte("\"\xff\"")) }, `encoding log: prompts[0].content: `},
		{"big integer", func(l *Log) { l.Model.Parameters = jsontext.Value(`{"seed":9007199254740993}`) }, `encoding log: model.parameters.seed: integer 9007199254740993 is beyond 2^53`},
		{"malformed", func(l *Log) { l.Metadata = jsontext.Value(`{"a":`) }, `encoding log: metadata`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := validLog()
			tc.fault(l)
			_, jerr := l.JSON()
			cerr := l.Canonical()
			if jerr == nil || cerr == nil || jerr.Error() != cerr.Error() || !strings.HasPrefix(cerr.Error(), tc.want) {
				t.Fatalf("JSON: %v\nCanonical: %v\nwant %s…", jerr, cerr, tc.want)
			}
		})
	}

	l := validLog()
	l.Steps[1].Tool = "R\xffead"
	l.Environment.ToolVersions = map[string]string{"t\xff": "1\xfe"}
	if err := l.Canonical(); err != nil {
		t.Fatal(err)
	}
	if l.Steps[1].Tool != "R\uFFFDead" || l.Environment.ToolVersions["t\uFFFD"] != "1\uFFFD" {
		t.Errorf("invalid UTF-8 not replaced as JSON prints it: %q, %q", l.Steps[1].Tool, l.Environment.ToolVersions)
	}
	if string(l.Model.Parameters) != `{"t":1}` || string(l.Steps[1].Parameters) != `[1,"x"]` || string(l.Steps[0].Metadata) != `{"a":2,"b":1}` {
		t.Errorf("values not canonical: %s %s %s", l.Model.Parameters, l.Steps[1].Parameters, l.Steps[0].Metadata)
	}
}

// FuzzValidLiteral: checkLiteral's fast path accepts exactly the string
// literals canonical JSON accepts.
func FuzzValidLiteral(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00x"`, `"\u00E9\/"`, "\"\xff\"", `"a"b"`, `"\x"`, `"\u12"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		want := len(lit) >= 2 && lit[0] == '"' && lit[len(lit)-1] == '"' && canon.Check(lit) == nil
		if got := validLiteral(lit); got != want {
			t.Fatalf("validLiteral(%q) = %v, canon.Check says %v", lit, got, want)
		}
	})
}
