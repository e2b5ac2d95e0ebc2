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

// BenchmarkReplayEdits replays a session that writes 50 files of 4 KiB
// and edits each 4 times, reading it after every edit: the workspace
// follows 250 edits, and each read sees the file as it was then.
func BenchmarkReplayEdits(b *testing.B) {
	p := newPacker(b)
	var steps []step
	for i := range 50 {
		name := fmt.Sprintf("src/f%02d.txt", i)
		var lines []string
		for j := range 128 {
			lines = append(lines, fmt.Sprintf("line %03d of %s", j, name))
		}
		content := strings.Join(lines, "\n") + "\n"
		steps = append(steps, step{tool: "Write", params: fmt.Sprintf(`{"file_path":%q,"content":%q}`, name, content), out: "File created successfully at: " + name})
		for k := range 4 {
			old := fmt.Sprintf("line %03d of", k*30)
			content = strings.Replace(content, old, old+" edited", 1)
			steps = append(steps,
				step{tool: "Edit", params: fmt.Sprintf(`{"file_path":%q,"old_string":%q,"new_string":%q}`, name, old, old+" edited"), out: "The file " + name + " has been updated successfully."},
				step{tool: "read_file", params: `{"path":"` + name + `"}`, out: content, det: true})
		}
	}
	m := p.pack(nil, steps, here)
	tmp := b.TempDir()
	b.ResetTimer()
	for b.Loop() {
		rep, err := Run(context.Background(), p.s, m, Options{TempDir: tmp})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Fidelity != Exact || rep.Summary.Verified != len(steps) {
			b.Fatalf("fidelity %s, %d of %d verified", rep.Fidelity, rep.Summary.Verified, len(steps))
		}
	}
}

// BenchmarkBraces compiles a glob of 10 {a,b} groups (1,024 alternatives)
// and refuses one of 25,000 groups.
func BenchmarkBraces(b *testing.B) {
	ten, huge := strings.Repeat("{a,b}", 10), strings.Repeat("{a,b}", 25000)
	for b.Loop() {
		if _, err := CompileGlob(ten); err != nil {
			b.Fatal(err)
		}
		if _, err := CompileGlob(huge); err == nil {
			b.Fatal("25,000 groups compiled")
		}
	}
}
