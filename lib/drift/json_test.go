package drift

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/digest"
)

// countingWriter records the writes it is given.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

func bigReport(n int) *Report {
	r := &Report{A: digest.Of([]byte("a")), B: digest.Of([]byte("b")), Summary: map[string]int{ToolOutputDrift: n}}
	for i := range n {
		step := i
		r.Drift = append(r.Drift, Entry{Type: ToolOutputDrift, Change: "modified", Path: stepPath(i) + ".output", AStep: &step, BStep: &step,
			A: jsontext.Value(`"x"`), Diff: "--- a\n+++ b\n@@ -1 +1 @@\n-" + strings.Repeat("old ", 60) + "\n+" + strings.Repeat("new ", 60) + "\n"})
	}
	return r
}

// WriteJSON writes JSON's bytes, in pieces, not held whole.
func TestWriteJSONStreams(t *testing.T) {
	r := bigReport(500)
	want, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(want) {
		t.Fatalf("JSON is not valid: %.200s", want)
	}
	var w countingWriter
	if err := r.WriteJSON(&w); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Bytes(), want) {
		t.Errorf("WriteJSON wrote other bytes than JSON gives")
	}
	if w.writes < len(want)/(2*flushAt) {
		t.Errorf("%d bytes in %d writes: held, not streamed", len(want), w.writes)
	}
}

// A report that cannot be written is refused before any of it is.
func TestWriteJSONRefusesFirst(t *testing.T) {
	for name, spoil := range map[string]func(r *Report){
		"value":   func(r *Report) { r.Drift[len(r.Drift)-1].B = jsontext.Value(`{"b":1,"a":2}`) },
		"utf-8":   func(r *Report) { r.Drift[len(r.Drift)-1].Diff = "\xff" },
		"no hash": func(r *Report) { r.B = digest.Digest{} },
		"summary": func(r *Report) { r.Summary["\xfe"] = 1 },
	} {
		r := bigReport(500)
		spoil(r)
		var w countingWriter
		err := r.WriteJSON(&w)
		if err == nil || !strings.HasPrefix(err.Error(), "encoding drift report: ") || w.Len() != 0 {
			t.Errorf("%s: WriteJSON = %v after writing %d bytes; want an error and nothing written", name, err, w.Len())
		}
		if b, err := r.JSON(); err == nil || b != nil {
			t.Errorf("%s: JSON = %d bytes, %v; want an error", name, len(b), err)
		}
	}
}
