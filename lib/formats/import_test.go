package formats_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/codex"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// Each model turn names, in metadata.model, the model that answered it
// (a response's model, gen_ai.response.model, a run's outputs), not only
// the run's first model.
func TestModelPerTurn(t *testing.T) {
	t.Parallel()
	tree := sharedtest.FixtureTree(t, "..", formats.Formats())
	for _, tt := range []struct {
		file, format string
		want         []any
	}{
		{"claude-code/synthetic.jsonl", claudecode.Name, []any{"claude-opus-4-7", "claude-sonnet-4-6"}},
		{"claude-code/progress.jsonl", claudecode.Name, []any{"claude-opus-4-6", "claude-haiku-4-5-20251001", "claude-haiku-4-5-20251001", "claude-haiku-4-5-20251001", "claude-opus-4-6"}},
		{"otel-genai/current.json", importer.OTelGenAI, []any{"gpt-4o-2024-11-20", "gpt-4o-2024-11-20"}},
		{"langsmith/edge.json", importer.LangSmith, []any{"gpt-4o-mini-2024-07-18", nil}},
	} {
		data, err := os.ReadFile(filepath.Join(tree, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := formats.Import(tt.format, data, importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []any
		for _, s := range importtest.Decode(t, out).Steps {
			if s.Type == importer.LLMCall {
				got = append(got, s.Metadata["model"])
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: models of the model turns %v, want %v", tt.file, got, tt.want)
		}
	}
}

// TestTruncatedLastLine: a log still being written ends in a cut-short
// record. It is left out with a warning naming its line; a malformed
// record anywhere else, or one that is not cut short but wrong, is an
// error naming its line.
func TestTruncatedLastLine(t *testing.T) {
	const ok = `{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}`
	tests := []struct {
		in, warn, err string
	}{
		{in: ok + "\n" + `{"type":"user","uuid":"u2","sess` + "\n\n", warn: "line 2 is cut short (the log was still being written?); it is left out"},
		{in: ok + "\n\n" + `{"type":"user","message":{"role":"user","content":"a`, warn: "line 3 is cut short (the log was still being written?); it is left out"},
		{in: `{"type":"user","uuid":"u2","sess` + "\n" + ok, err: "claude-code: line 1: invalid JSON"},
		{in: ok + "\n" + `{"type":"user","uuid":}`, err: "claude-code: line 2: invalid JSON"},
		{in: `{"type":"user","uuid":"u2","sess`, err: "claude-code: line 1: invalid JSON"},
	}
	for _, tt := range tests {
		_, rep, err := formats.Import(claudecode.Name, []byte(tt.in), importer.Options{})
		if tt.err != "" {
			var ie *importer.Error
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("Import(%.40q) error = %v, want %q…", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Import(%.40q): %v", tt.in, err)
			continue
		}
		if len(rep.Warnings) == 0 || rep.Warnings[0] != tt.warn || rep.Records != 1 || rep.Mapped != 1 {
			t.Errorf("Import(%.40q) report = %+v", tt.in, rep)
		}
	}
	// The same holds in every JSON Lines format.
	in := `{"timestamp":"2025-01-01T00:00:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"x"}]}}` + "\n" + `{"timestamp":"2025-01-01T00:00:01Z","type":"response_item","payload":{"ty`
	if _, rep, err := formats.Import(codex.Name, []byte(in), importer.Options{}); err != nil || len(rep.Warnings) == 0 || !strings.HasPrefix(rep.Warnings[0], "line 2 is cut short") {
		t.Errorf("codex: %v, %+v", err, rep)
	}
}
