package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/manifest"
)

// TestMaterialiseShares names one object by many inputs: the workspace
// holds its bytes once (hard links), not once per name.
func TestMaterialiseShares(t *testing.T) {
	t.Parallel()
	p := newPacker(t)
	body := strings.Repeat("x", 64<<10)
	d := p.put(body)
	var ins []manifest.File
	for i := range 50 {
		ins = append(ins, manifest.File{Name: fmt.Sprintf("dir%d/f.txt", i), ContentRef: d, Size: int64(len(body))})
	}
	ws, drift, err := Materialise(p.s, ins, t.TempDir())
	if err != nil || len(drift) > 0 {
		t.Fatalf("Materialise = %v, %v", drift, err)
	}
	defer ws.Remove()
	first, err := os.Stat(filepath.Join(ws.Dir, "dir0/f.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(ins); i++ {
		fi, err := os.Stat(filepath.Join(ws.Dir, ins[i].Name))
		if err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(first, fi) {
			t.Fatalf("%s is a copy of %s: one object named %d times is written %d times", ins[i].Name, ins[0].Name, len(ins), len(ins))
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws.Dir, "dir49/f.txt")); err != nil || string(b) != body {
		t.Fatalf("dir49/f.txt: %d bytes, %v", len(b), err)
	}
}

// TestMaterialiseDeclaredSize: an input is written only as large as the
// pack says it is; an object of another size is a damaged store, not
// bytes to copy without end.
func TestMaterialiseDeclaredSize(t *testing.T) {
	t.Parallel()
	p := newPacker(t)
	d := p.put(strings.Repeat("y", 1000))
	ws, drift, err := Materialise(p.s, []manifest.File{{Name: "a.txt", ContentRef: d, Size: 10}}, t.TempDir())
	if err == nil {
		defer ws.Remove()
		if len(drift) == 0 {
			t.Fatal("an object larger than its declared size was written")
		}
	}
}
