package sidecar

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// project is a directory with a store holding one pack with two outputs,
// the artifacts written out under out/, and their sidecars beside them.
type project struct {
	dir string
	s   *store.Store
	m   *manifest.Manifest
}

func newProject(t *testing.T) *project {
	t.Helper()
	dir := t.TempDir()
	s, _, err := store.Init(filepath.Join(dir, ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	put := func(b string) digest.Digest {
		d, _, err := s.Put([]byte(b))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	m := &manifest.Manifest{
		Version: manifest.Version, Created: "2026-02-10T09:00:00Z",
		Model:  manifest.Model{Identifier: "gpt-4o"},
		Inputs: []manifest.File{{Name: "spec.md", ContentRef: put("spec"), Size: 4}},
		Steps:  []manifest.Step{{Index: 0, Type: manifest.ToolCall, Tool: "read_file", OutputRef: put("spec")}},
		Outputs: []manifest.Output{
			{Name: "result.md", ContentRef: put("# Result\n"), Size: 9, Confidence: "high", Notes: "no manual edits"},
			{Name: "handlers/user.go", ContentRef: put("package handlers\n"), Size: 17},
		},
	}
	if _, _, err := manifest.Commit(s, m); err != nil {
		t.Fatal(err)
	}
	p := &project{dir: dir, s: s, m: m}
	p.write(t, "out/result.md", "# Result\n")
	p.write(t, "out/handlers/user.go", "package handlers\n")
	for _, sc := range ForPack(m) {
		if _, err := Write(filepath.Join(dir, "out"), sc, false); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func (p *project) write(t *testing.T, rel, content string) {
	t.Helper()
	name := filepath.Join(p.dir, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(name), 0o755)
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (p *project) verify(t *testing.T, rel string) *Verdict {
	t.Helper()
	v, err := Verify(filepath.Join(p.dir, filepath.FromSlash(rel)), store.Find)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVerifyVerified(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	v := p.verify(t, "out/result.md")
	if v.Status != Verified || v.ExitCode() != 0 {
		t.Fatalf("status %s (%s)", v.Status, v.Reason)
	}
	out := digest.Of([]byte("# Result\n"))
	spec := digest.Of([]byte("spec"))
	got, _ := json.Marshal(v)
	art := filepath.Join(p.dir, "out", "result.md")
	want := `{"artifact":"` + art + `","sidecar":"` + art + `.ctx.json","status":"verified","context_pack":"` + p.m.Hash.String() +
		`","uri":"` + p.m.Hash.URI() + `","created":"2026-02-10T09:00:00Z","model":"gpt-4o","output":"result.md","expected":"` + out.String() +
		`","actual":"` + out.String() + `","inputs":["` + spec.String() + `"],"tools":["read_file"],"confidence":"high","notes":"no manual edits"}`
	if string(got) != want {
		t.Errorf("verdict:\n got %s\nwant %s", got, want)
	}
	h := v.Human()
	for _, s := range []string{art + ": verified\n", "  confidence high\n", "  notes      no manual edits\n", "  next: ctx-show " + p.m.Hash.String()} {
		if !strings.Contains(h, s) {
			t.Errorf("Human lacks %q:\n%s", s, h)
		}
	}

	// An output in a subdirectory is found by its full name.
	if v := p.verify(t, "out/handlers/user.go"); v.Status != Verified || v.Output != "handlers/user.go" {
		t.Errorf("subdirectory output: %s %s (%s)", v.Status, v.Output, v.Reason)
	}
}

func TestVerifyModified(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	p.write(t, "out/result.md", "# Result, edited\n")
	v := p.verify(t, "out/result.md")
	if v.Status != Modified || v.ExitCode() != 1 {
		t.Fatalf("status %s (%s)", v.Status, v.Reason)
	}
	if v.Expected != digest.Of([]byte("# Result\n")) || v.Actual != digest.Of([]byte("# Result, edited\n")) {
		t.Errorf("expected %s actual %s", v.Expected, v.Actual)
	}
	h := v.Human()
	if !strings.Contains(h, "  expected   "+v.Expected.String()) || !strings.Contains(h, "  actual     "+v.Actual.String()) {
		t.Errorf("Human:\n%s", h)
	}
}

func TestVerifyNoProvenance(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	os.Remove(filepath.Join(p.dir, "out", "result.md.ctx.json"))
	v := p.verify(t, "out/result.md")
	if v.Status != NoProvenance || v.ExitCode() != 1 || !v.ContextPack.IsZero() {
		t.Fatalf("verdict %+v", v)
	}
}

func TestVerifyBroken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		sidecar func(p *project) string
		reason  string
	}{
		{"missing pack", func(p *project) string {
			sc := ForPack(p.m)[0]
			sc.ContextPack = digest.Of([]byte("gone"))
			b, _ := Encode(sc)
			return string(b)
		}, "pack " + digest.Of([]byte("gone")).String() + " is not in the store "},
		{"no such output", func(p *project) string {
			sc := ForPack(p.m)[0]
			sc.Output = "result.txt"
			b, _ := Encode(sc)
			return string(b)
		}, `has no output named "result.txt"`},
		{"basename only", func(p *project) string {
			sc := ForPack(p.m)[1]
			sc.Output = "user.go"
			b, _ := Encode(sc)
			return string(b)
		}, `has no output named "user.go"`},
		{"claims more confidence", func(p *project) string {
			sc := ForPack(p.m)[0]
			sc.Confidence, sc.Tools = "low", []string{"web_search"}
			b, _ := Encode(sc)
			return string(b)
		}, `sidecar disagrees with the pack's record of "result.md" on tools, confidence`},
		{"unreadable", func(*project) string { return `{"context_pack":` }, "sidecar does not parse: context_pack (line 1, column 17): unexpected end of JSON input"},
		{"seed format", func(p *project) string {
			return `{"context_pack":"` + p.m.Hash.String() + `","inputs":[],"tools":[]}`
		}, "sidecar does not parse: output is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newProject(t)
			p.write(t, "out/result.md.ctx.json", tt.sidecar(p))
			v := p.verify(t, "out/result.md")
			if v.Status != Broken || v.ExitCode() != 1 || !strings.Contains(v.Reason, tt.reason) {
				t.Fatalf("status %s, reason %q; want broken, %q", v.Status, v.Reason, tt.reason)
			}
		})
	}
}

func TestVerifyErrors(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	if _, err := Verify(filepath.Join(p.dir, "out", "absent.md"), store.Find); err == nil {
		t.Error("a missing artifact is not an error")
	}
	// An artifact outside any store.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "a.md"), []byte("x"), 0o644)
	sc := ForPack(p.m)[0]
	b, _ := Encode(sc)
	os.WriteFile(filepath.Join(other, "a.md.ctx.json"), b, 0o644)
	if _, err := Verify(filepath.Join(other, "a.md"), store.Find); err == nil || !strings.Contains(err.Error(), "no ctx store") {
		t.Errorf("no store: err %v", err)
	}
}

// The readable verdict escapes what the pack and the sidecar say: a field
// cannot end its line and forge the next.
func TestHumanEscapes(t *testing.T) {
	t.Parallel()
	v := &Verdict{Artifact: "out\n.txt", Status: Verified, Model: "m\nforged: yes", Notes: "n\u001b[2J", Tools: []string{"a\nforged"}}
	h := v.Human()
	for _, line := range strings.Split(h, "\n") {
		if strings.HasPrefix(line, "forged") || strings.HasPrefix(line, ".txt") || strings.ContainsRune(line, '\x1b') {
			t.Errorf("line %q of\n%s", line, h)
		}
	}
	if !strings.Contains(h, `m\u000aforged: yes`) || !strings.Contains(h, `n\u001b[2J`) {
		t.Errorf("fields not shown escaped:\n%s", h)
	}
}
