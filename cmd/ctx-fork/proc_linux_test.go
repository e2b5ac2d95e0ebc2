package main

// Tests that watch running binaries through /proc.

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
)

// bigText is the size of the largest object in TestBoundedMemory.
const bigText = 64 << 20

// TestBoundedMemory checks that printing a pack whose largest object is
// bigText bytes peaks at no more than 1.5 times that plus 32 MiB: ctx-fork,
// ctx-show --resolve and --html, and ctx-diff of two such packs.
func TestBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("packs and prints 64 MiB objects")
	}
	dir := t.TempDir()
	store := filepath.Join(dir, ".ctx")
	run := func(name string, args ...string) string {
		t.Helper()
		out, err := exec.Command(e2e.PlainBin(t, name), append([]string{"--store", store}, args...)...).Output()
		if err != nil {
			t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	run("ctx-init")
	line := []byte("the quick brown fox jumps over the lazy dog \"quoted\" and a tab\t\n")
	text := bytes.Repeat(line, bigText/len(line))
	os.WriteFile(filepath.Join(dir, "a.txt"), text, 0o644)
	text[len(text)/2] = 'X'
	os.WriteFile(filepath.Join(dir, "b.txt"), text, 0o644)
	for _, n := range []string{"a", "b"} {
		log := fmt.Sprintf(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"inputs":[{"name":"in.txt","path":"%s.txt"}],"steps":[{"type":"tool_call","tool":"cat","output_path":"%[1]s.txt"}]}`, n)
		os.WriteFile(filepath.Join(dir, n+".json"), []byte(log), 0o644)
	}
	hashOf := func(packLine string) string {
		i := strings.Index(packLine, `"hash":"`)
		return packLine[i+8 : i+8+71]
	}
	a := hashOf(run("ctx-pack", filepath.Join(dir, "a.json")))
	b := hashOf(run("ctx-pack", filepath.Join(dir, "b.json")))

	const limit = (bigText*3/2 + 32<<20) >> 10 // KiB
	for _, tc := range []struct {
		name    string
		args    []string
		minOut  int64 // the command must really have printed the content
		okCodes []int
	}{
		{"ctx-fork", []string{a}, 2 * bigText, nil},
		{"ctx-show", []string{"--resolve", a}, 2 * bigText, nil},
		{"ctx-show", []string{"--html", a}, 1, nil},
		{"ctx-diff", []string{a, b}, 1, []int{1}},
		{"ctx-diff", []string{"--html", a, b}, 1, []int{1}},
	} {
		name := tc.name
		if strings.HasPrefix(tc.args[0], "--") {
			name += " " + tc.args[0]
		}
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(e2e.PlainBin(t, tc.name), append([]string{"--store", store}, tc.args...)...)
			var out countingWriter
			cmd.Stdout = &out
			kib := e2e.PeakRSS(t, cmd, tc.okCodes...)
			t.Logf("peak RSS %d MiB, %d bytes out", kib>>10, out.n)
			if kib > limit {
				t.Errorf("peak RSS %d MiB with a %d MiB object, want at most %d MiB", kib>>10, bigText>>20, limit>>10)
			}
			if out.n < tc.minOut {
				t.Errorf("printed %d bytes, want at least %d", out.n, tc.minOut)
			}
		})
	}

	// What ctx-fork streamed is the pack: packing it gives back a's hash.
	fork := exec.Command(e2e.PlainBin(t, "ctx-fork"), "--store", store, "--no-parent", a)
	pack := exec.Command(e2e.PlainBin(t, "ctx-pack"), "--store", store)
	pipe, err := fork.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	pack.Stdin = io.TeeReader(pipe, h)
	if err := fork.Start(); err != nil {
		t.Fatal(err)
	}
	out, err := pack.Output()
	if werr := fork.Wait(); err != nil || werr != nil {
		t.Fatalf("ctx-fork | ctx-pack: %v, %v", werr, err)
	}
	if got := hashOf(string(out)); got != a {
		t.Fatalf("ctx-fork --no-parent %s | ctx-pack gave %s", a, got)
	}
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}
