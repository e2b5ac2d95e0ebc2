package drift

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// memObjects is an Objects held in memory.
type memObjects map[digest.Digest][]byte

func (o memObjects) Open(d digest.Digest) (io.ReadCloser, error) {
	b, ok := o[d]
	if !ok {
		return nil, store.ErrNotFound
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (o memObjects) put(s string) (digest.Digest, int64) {
	d := digest.Of([]byte(s))
	o[d] = []byte(s)
	return d, int64(len(s))
}

// genManifest builds a manifest whose every compared fact, the extended
// ones included, is chosen by the bytes of data.
func genManifest(data []byte, objs memObjects) *manifest.Manifest {
	next := func(n int) int {
		if len(data) == 0 {
			return 0
		}
		c := int(data[0])
		data = data[1:]
		return c % n
	}
	text := func() string { return fmt.Sprintf("text %d\n", next(3)) }
	bin := func() string { return fmt.Sprintf("\x00bin %d", next(3)) }
	parts := func() []manifest.Part {
		ps := []manifest.Part{}
		for range 1 + next(2) {
			p := manifest.Part{Type: manifest.PartText}
			s := text()
			if next(2) == 1 {
				p.Type, p.MediaType, s = manifest.PartImage, []string{"image/png", "image/webp"}[next(2)], bin()
			}
			p.ContentRef, p.Size = objs.put(s)
			ps = append(ps, p)
		}
		return ps
	}
	opt := func() *int64 {
		if next(2) == 0 {
			return nil
		}
		n := int64(next(3))
		return &n
	}
	m := &manifest.Manifest{Version: manifest.Version, Created: "2026-01-01T00:00:00Z",
		Model: manifest.Model{Identifier: []string{"m1", "m2"}[next(2)]}}
	p := manifest.Prompt{Role: "user"}
	if next(2) == 0 {
		p.ContentRef, _ = objs.put(text())
	} else {
		p.Parts = parts()
	}
	m.Prompts = []manifest.Prompt{p}
	for _, name := range []string{"a", "b"} {
		f := manifest.File{Name: name, MediaType: []string{"", "text/plain"}[next(2)]}
		switch next(3) {
		case 1:
			f.Seen, f.Lines, f.TotalLines = manifest.SeenPartial, [][2]int64{{1, int64(1 + next(2))}}, int64(next(2)*9)
		case 2:
			f.Seen = manifest.SeenName
		}
		if f.Seen != manifest.SeenName {
			f.ContentRef, f.Size = objs.put(text())
		}
		m.Inputs = append(m.Inputs, f)
	}
	for i := range 3 {
		s := manifest.Step{Index: i, Type: manifest.ToolCall, Tool: []string{"t1", "t2"}[next(2)], Timestamp: "2026-01-01T00:00:00Z"}
		if next(3) == 0 {
			s.Type, s.Tool = manifest.LLMCall, ""
		}
		switch next(3) {
		case 1:
			s.OutputRef, _ = objs.put(text())
		case 2:
			s.OutputParts = parts()
		}
		if next(2) == 1 {
			s.ReasoningRef, _ = objs.put(text())
		}
		switch next(3) {
		case 1:
			s.Error = &manifest.StepError{}
		case 2:
			s.Error = &manifest.StepError{Message: text(), ExitCode: opt()}
		}
		if next(2) == 1 {
			s.Usage = &manifest.Usage{InputTokens: opt(), OutputTokens: opt(), ReasoningTokens: opt()}
		}
		if next(2) == 1 {
			s.Agent = []string{"x", "y"}[next(2)]
		}
		if i > 0 && next(2) == 1 {
			ps := next(i)
			s.ParentStep = &ps
		}
		if next(2) == 1 {
			s.Metadata = jsontext.Value(fmt.Sprintf(`{"k":%d}`, next(3)))
		}
		m.Steps = append(m.Steps, s)
	}
	o := manifest.Output{Name: "o", MediaType: []string{"", "text/markdown"}[next(2)]}
	o.ContentRef, o.Size = objs.put(text())
	m.Outputs = []manifest.Output{o}
	if next(2) == 1 {
		m.Metadata = jsontext.Value(fmt.Sprintf(`{"run":%d}`, next(3)))
	}
	return m
}

// FuzzDiffSeesEveryFact checks that two packs that differ in any compared
// fact, extended fields included, are never reported identical, that
// packs equal in all of them always are, and that each entry's type can
// be ignored.
func FuzzDiffSeesEveryFact(f *testing.F) {
	f.Add([]byte{}, []byte{})
	f.Add(bytes.Repeat([]byte{1}, 80), bytes.Repeat([]byte{1}, 80))
	f.Add(bytes.Repeat([]byte{1}, 80), append(bytes.Repeat([]byte{1}, 40), 2))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25},
		[]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 26})
	f.Fuzz(func(t *testing.T, da, db []byte) {
		objs := memObjects{}
		a, b := genManifest(da, objs), genManifest(db, objs)
		ea, err := manifest.Encode(a)
		if err != nil {
			t.Fatal(err)
		}
		eb, _ := manifest.Encode(b)
		if _, err := manifest.Parse(ea); err != nil {
			t.Fatalf("generated manifest is invalid: %v\n%s", err, ea)
		}
		a.Hash, b.Hash = digest.Of(ea), digest.Of(eb)
		r, err := Diff(a, b, objs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkJSON(t, r)
		if r.Identical != bytes.Equal(ea, eb) {
			t.Fatalf("identical = %v for\n%s\n%s\n%s", r.Identical, ea, eb, briefs(r))
		}
		var ignore []string
		for typ := range r.Summary {
			ignore = append(ignore, typ)
		}
		if r, err := Diff(a, b, objs, Options{Ignore: ignore}); err != nil || !r.Identical {
			t.Fatalf("ignoring %v leaves %s (%v)", ignore, briefs(r), err)
		}
	})
}

// checkJSON requires Report.JSON to give what encoding the report and
// canonicalizing the result gives.
func checkJSON(t *testing.T, r *Report) {
	t.Helper()
	got, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	enc, err := json.Marshal(r, json.Deterministic(true))
	if err != nil {
		t.Fatal(err)
	}
	want, err := canon.Canonicalize(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Report.JSON:\n%s\nencoded and canonicalized:\n%s", got, want)
	}
}
