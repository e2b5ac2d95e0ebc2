package manifest

import (
	"fmt"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
)

// benchManifest is a 10,000-step manifest (about 2 MB).
func benchManifest() *Manifest {
	m := &Manifest{Version: Version, Created: "2026-02-10T09:00:00Z", Model: Model{Identifier: "gpt-4o"}}
	for i := range 10000 {
		m.Steps = append(m.Steps, Step{
			Index: i, Type: ToolCall, Tool: "read_file", Deterministic: true,
			Parameters: []byte(fmt.Sprintf(`{"path":"src/pkg%d/file%d.go"}`, i%97, i)),
			OutputRef:  digest.Of([]byte(fmt.Sprint(i))),
			Timestamp:  "2026-02-10T09:00:01Z",
		})
	}
	return m
}

// BenchmarkEncode encodes a 10,000-step manifest, as ctx-pack stores one.
func BenchmarkEncode(b *testing.B) {
	m := benchManifest()
	data, err := Encode(m)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Encode(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse parses a 10,000-step manifest (about 2 MB), as ctx-diff
// and ctx-replay load one.
func BenchmarkParse(b *testing.B) {
	data, err := Encode(benchManifest())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
