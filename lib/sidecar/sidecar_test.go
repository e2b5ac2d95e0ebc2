package sidecar

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
)

var (
	pack = digest.Of([]byte("pack"))
	in1  = digest.Of([]byte("in1"))
	in2  = digest.Of([]byte("in2"))
	out1 = digest.Of([]byte("out1"))
	out2 = digest.Of([]byte("out2"))
)

func testManifest() *manifest.Manifest {
	return &manifest.Manifest{
		Version: manifest.Version,
		Hash:    pack,
		Created: "2026-02-10T09:00:00Z",
		Model:   manifest.Model{Identifier: "gpt-4o"},
		Inputs: []manifest.File{
			{Name: "b.txt", ContentRef: in2},
			{Name: "a.txt", ContentRef: in1},
			{Name: "c.txt", ContentRef: in2},
		},
		Steps: []manifest.Step{
			{Index: 0, Type: manifest.ToolCall, Tool: "write_file"},
			{Index: 1, Type: manifest.LLMCall},
			{Index: 2, Type: manifest.ToolCall, Tool: "read_file"},
			{Index: 3, Type: manifest.ToolCall, Tool: "write_file"},
		},
		Outputs: []manifest.Output{
			{Name: "result.md", ContentRef: out1, Confidence: "high", Notes: "from template"},
			{Name: "handlers/user.go", ContentRef: out2},
		},
	}
}

func TestForPack(t *testing.T) {
	t.Parallel()
	scs := ForPack(testManifest())
	if len(scs) != 2 {
		t.Fatalf("got %d sidecars, want 2", len(scs))
	}
	want := []string{
		`{"confidence":"high","content_ref":"` + out1.String() + `","context_pack":"` + pack.String() + `","inputs":["` + in2.String() + `","` + in1.String() + `"],"notes":"from template","output":"result.md","tools":["read_file","write_file"]}` + "\n",
		`{"content_ref":"` + out2.String() + `","context_pack":"` + pack.String() + `","inputs":["` + in2.String() + `","` + in1.String() + `"],"output":"handlers/user.go","tools":["read_file","write_file"]}` + "\n",
	}
	for i, sc := range scs {
		b, err := Encode(sc)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want[i] {
			t.Errorf("sidecar %d:\n got %s\nwant %s", i, b, want[i])
		}
		back, err := Parse(b)
		if err != nil {
			t.Fatalf("parsing what Encode wrote: %v", err)
		}
		b2, _ := Encode(back)
		if string(b2) != string(b) {
			t.Errorf("round trip changed the sidecar:\n got %s\nwant %s", b2, b)
		}
	}
}

// An input seen only by name has no content, so no digest to list.
func TestForPackNameOnlyInput(t *testing.T) {
	t.Parallel()
	m := testManifest()
	m.Inputs = append(m.Inputs, manifest.File{Name: "listed.txt", Seen: manifest.SeenName})
	sc := ForPack(m)[0]
	if len(sc.Inputs) != 2 || sc.Inputs[0] != in2 || sc.Inputs[1] != in1 {
		t.Errorf("inputs = %v, want [%s %s]", sc.Inputs, in2, in1)
	}
	if _, err := Encode(sc); err != nil {
		t.Errorf("encoding: %v", err)
	}
}

func TestEncodeEmptyLists(t *testing.T) {
	t.Parallel()
	b, err := Encode(Sidecar{ContextPack: pack, Output: "x", ContentRef: out1})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"content_ref":"` + out1.String() + `","context_pack":"` + pack.String() + `","inputs":[],"output":"x","tools":[]}` + "\n"
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	ok := `{"context_pack":"` + pack.String() + `","output":"a","content_ref":"` + out1.String() + `","inputs":[],"tools":[]}`
	tests := []struct {
		name, in, err string
	}{
		{"ok", ok, ""},
		{"indented", strings.ReplaceAll(ok, ",", ",\n  "), ""},
		{"unknown member", strings.TrimSuffix(ok, "}") + `,"extra":1}`, "unknown"},
		{"duplicate member", strings.TrimSuffix(ok, "}") + `,"output":"b"}`, "duplicate"},
		{"no pack", `{"output":"a"}`, "context_pack is missing"},
		{"no output", `{"context_pack":"` + pack.String() + `"}`, "output is missing"},
		{"bad digest", `{"context_pack":"sha256:12","output":"a"}`, "invalid digest"},
		{"not json", `context_pack: x`, "parsing sidecar"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc, err := Parse([]byte(tt.in))
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if sc.ContextPack != pack || sc.Output != "a" || sc.ContentRef != out1 {
					t.Errorf("parsed %+v", sc)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want one containing %q", err, tt.err)
			}
		})
	}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "side")
	scs := ForPack(testManifest())
	for _, sc := range scs {
		p, err := Write(dir, sc, false)
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(dir, filepath.FromSlash(sc.Output)+".ctx.json"); p != want {
			t.Errorf("path %s, want %s", p, want)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Encode(sc)
		if string(got) != string(want) {
			t.Errorf("%s holds %s, want %s", p, got, want)
		}
	}

	// The same bytes again: a no-op.
	if _, err := Write(dir, scs[0], false); err != nil {
		t.Fatalf("rewriting identical sidecar: %v", err)
	}

	// Other bytes: refused, and the file is untouched.
	other := scs[0]
	other.ContextPack = digest.Of([]byte("other pack"))
	p, err := Write(dir, other, false)
	if !errors.Is(err, ErrExists) {
		t.Fatalf("overwriting a different sidecar: err %v, want ErrExists", err)
	}
	got, _ := os.ReadFile(p)
	if want, _ := Encode(scs[0]); string(got) != string(want) {
		t.Errorf("refused write changed the file: %s", got)
	}

	// Forced: replaced, and no temporary file is left behind.
	if _, err := Write(dir, other, true); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(p)
	if want, _ := Encode(other); string(got) != string(want) {
		t.Errorf("forced write left %s, want %s", got, want)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "handlers result.md.ctx.json" {
		t.Errorf("dir holds %v", names)
	}
}

func TestWriteNeverEscapes(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "side")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A symlink inside dir that leads out of it.
	if err := os.Symlink(outside, filepath.Join(dir, "handlers")); err != nil {
		t.Fatal(err)
	}
	// A sidecar name that is a symlink leading out.
	if err := os.Symlink(filepath.Join(outside, "victim"), filepath.Join(dir, "r.md.ctx.json")); err != nil {
		t.Fatal(err)
	}
	sc := ForPack(testManifest())[1] // handlers/user.go
	if _, err := Write(dir, sc, true); err == nil {
		t.Fatal("writing through a symlink that leaves dir succeeded")
	}
	if err := CheckFiles(dir, []string{"handlers/user.go"}, Suffix); err == nil {
		t.Error("Check accepted a path through a symlink that leaves dir")
	}
	sc.Output = "r.md"
	if _, err := Write(dir, sc, false); err == nil {
		t.Fatal("writing to a symlink that leaves dir succeeded")
	}
	if err := CheckFiles(dir, []string{"r.md"}, Suffix); err == nil {
		t.Error("Check accepted a sidecar name that is a symlink leaving dir")
	}
	for _, bad := range []string{"../x", "/abs"} {
		sc.Output = bad
		if _, err := Write(dir, sc, true); err == nil {
			t.Errorf("Write accepted output name %q", bad)
		}
		if err := CheckFiles(dir, []string{bad}, Suffix); err == nil {
			t.Errorf("Check accepted output name %q", bad)
		}
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 0 {
		t.Errorf("something was written outside dir: %v", ents)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	if err := CheckFiles(filepath.Join(base, "absent"), []string{"a/b.md", "c.md"}, Suffix); err != nil {
		t.Errorf("a directory still to be created: %v", err)
	}
	file := filepath.Join(base, "file")
	os.WriteFile(file, nil, 0o644)
	if err := CheckFiles(file, []string{"a.md"}, Suffix); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("dir is a file: err %v", err)
	}
	dir := filepath.Join(base, "d")
	os.MkdirAll(filepath.Join(dir, "x.md.ctx.json"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub"), nil, 0o644)
	if err := CheckFiles(dir, []string{"sub/a.md"}, Suffix); err == nil || !strings.Contains(err.Error(), "sub is not a directory") {
		t.Errorf("a file in the way: err %v", err)
	}
	if err := CheckFiles(dir, []string{"x.md"}, Suffix); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory at the sidecar's name: err %v", err)
	}
	// A symlink that stays inside dir is fine.
	os.Mkdir(filepath.Join(dir, "real"), 0o755)
	os.Symlink("real", filepath.Join(dir, "alias"))
	if err := CheckFiles(dir, []string{"alias/a.md", "new/deeper/b.md"}, Suffix); err != nil {
		t.Errorf("paths inside dir: %v", err)
	}
}
