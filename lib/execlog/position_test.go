package execlog

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestPosition checks the incremental line and column count against a
// count from the start, for offsets in and out of order.
func TestPosition(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 5000)
	for i := range data {
		data[i] = "ab\n"[r.IntN(3)]
	}
	p := &parser{data: data}
	for range 2000 {
		off := r.IntN(len(data) + 1)
		if r.IntN(4) > 0 { // mostly forward, as problems come
			off = min(len(data), p.pos.off+r.IntN(20))
		}
		line, col := p.position(off)
		wantLine := 1 + bytes.Count(data[:off], []byte{'\n'})
		wantCol := off - bytes.LastIndexByte(data[:off], '\n')
		if line != wantLine || col != wantCol {
			t.Fatalf("position(%d) = %d:%d, want %d:%d", off, line, col, wantLine, wantCol)
		}
	}
}

// TestProblemPosition checks the line and column a problem reports.
func TestProblemPosition(t *testing.T) {
	t.Parallel()
	log := "{\n  \"created\": \"2026-01-01T00:00:00Z\",\n  \"model\": {\"identifier\": \"m\"},\n  \"steps\": [],\n  \"bogus\": 1\n}\n"
	_, err := Parse([]byte(log), Options{})
	probs, ok := err.(Problems)
	if !ok || len(probs) == 0 {
		t.Fatalf("Parse = %v, want problems", err)
	}
	if p := probs[0]; p.Line != 5 || p.Column != 12 { // at the value
		t.Errorf("problem %q at %d:%d, want 5:12", p.Msg, p.Line, p.Column)
	}
}
