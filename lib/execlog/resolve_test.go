package execlog

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// TestResolveBounded: one object named by many inputs resolves to that
// object once per name; beyond MaxResolved bytes FromManifest refuses,
// before reading, instead of building gigabytes in memory.
func TestResolveBounded(t *testing.T) {
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("z", 1<<20)
	d, _, err := s.Put([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	m := &manifest.Manifest{Version: manifest.Version, Created: "2026-01-01T00:00:00Z",
		Model: manifest.Model{Identifier: "m"}, Prompts: []manifest.Prompt{}, Steps: []manifest.Step{}, Outputs: []manifest.Output{}}
	for i := range 1000 {
		m.Inputs = append(m.Inputs, manifest.File{Name: fmt.Sprintf("f%d", i), ContentRef: d, Size: 1 << 20})
	}
	if _, _, err := manifest.Commit(s, m); err != nil {
		t.Fatal(err)
	}
	_, err = FromManifest(s, m)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("FromManifest of 1,000 × 1 MiB = %v, want ErrTooLarge", err)
	}
	// Within the bound, the object is read once and shared.
	m.Inputs = m.Inputs[:10]
	l, err := FromManifest(s, m)
	if err != nil {
		t.Fatal(err)
	}
	a, b := l.Inputs[0].Content, l.Inputs[9].Content
	if a.kind != data || b.kind != data || len(a.data) != 1<<20 || &a.data[0] != &b.data[0] {
		t.Error("one object named by ten inputs is read into memory ten times")
	}
}
