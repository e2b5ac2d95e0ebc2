package replay

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkReplay replays a pack of 500 inputs of 4 KiB with a read_file
// step for each, then a grep and a glob over them: materialising the
// hermetic workspace dominates.
func BenchmarkReplay(b *testing.B) {
	p := newPacker(b)
	inputs := map[string]string{}
	var steps []step
	for i := range 500 {
		name := fmt.Sprintf("src/pkg%02d/file%03d.go", i%20, i)
		content := strings.Repeat(fmt.Sprintf("line %d of %s\n", i, name), 4096/32)
		inputs[name] = content
		steps = append(steps, step{tool: "read_file", params: `{"path":"` + name + `"}`, out: content, det: true})
	}
	steps = append(steps,
		step{tool: "grep", params: `{"pattern":"line 42 ","output_mode":"count"}`, out: "src/pkg02/file042.go:128\n", det: true},
		step{tool: "glob", params: `{"pattern":"src/pkg07/*.go"}`, out: "<none>", det: true})
	m := p.pack(inputs, steps, here)
	tmp := b.TempDir()
	b.ResetTimer()
	for b.Loop() {
		rep, err := Run(context.Background(), p.s, m, Options{TempDir: tmp})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Fidelity != Exact {
			b.Fatalf("fidelity %s: %+v", rep.Fidelity, rep.Steps[len(rep.Steps)-2])
		}
	}
}
