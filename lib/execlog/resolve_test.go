package execlog

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// TestResolveShared: one object named by many inputs is read into
// memory once, not once per name (1,000 × 1 MiB would be 1 GiB).
func TestResolveShared(t *testing.T) {
	t.Parallel()
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("z", inlineInMemory)
	d, _, err := s.Put([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	m := &manifest.Manifest{Version: manifest.Version, Created: "2026-01-01T00:00:00Z",
		Model: manifest.Model{Identifier: "m"}, Prompts: []manifest.Prompt{}, Steps: []manifest.Step{}, Outputs: []manifest.Output{}}
	for i := range 1000 {
		m.Inputs = append(m.Inputs, manifest.File{Name: fmt.Sprintf("f%d", i), ContentRef: d, Size: inlineInMemory})
	}
	if _, _, err := manifest.Commit(s, m); err != nil {
		t.Fatal(err)
	}
	l, err := FromManifest(s, m)
	if err != nil {
		t.Fatal(err)
	}
	first := l.Inputs[0].Content
	for i, f := range l.Inputs {
		c := f.Content
		if c.kind != data || len(c.data) != inlineInMemory || &c.data[0] != &first.data[0] {
			t.Fatalf("input %d holds its own copy of the object: one object named 1,000 times is read 1,000 times", i)
		}
	}
}
