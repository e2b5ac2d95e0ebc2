package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

func initStore(t *testing.T) (string, *store.Store) {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command(e2e.Bin("ctx-init"), dir).CombinedOutput(); err != nil {
		t.Fatalf("ctx-init: %v\n%s", err, out)
	}
	s, err := store.Open(filepath.Join(dir, ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, s
}

// checkStore re-hashes every object and loads every pack.
func checkStore(t *testing.T, s *store.Store) int {
	t.Helper()
	objs, err := s.Objects("")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range objs {
		if _, err := s.Get(d); err != nil {
			t.Errorf("object %s: %v", d, err)
		}
	}
	packs, err := s.Packs("")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range packs {
		m, err := manifest.Load(s, d)
		if err != nil {
			t.Errorf("pack %s: %v", d, err)
			continue
		}
		for _, r := range m.Refs() {
			if ok, _ := s.Has(r); !ok {
				t.Errorf("pack %s references missing object %s", d, r)
			}
		}
	}
	return len(packs)
}

// TestConcurrentPack runs many ctx-pack processes on one store at once,
// with content they share, and checks that every pack is complete, every
// object intact, and latest names one of them.
func TestConcurrentPack(t *testing.T) {
	dir, s := initStore(t)
	const procs = 10
	shared := make([]string, 40)
	for i := range shared {
		shared[i] = fmt.Sprintf(`{"name":"shared/%d.txt","content":%q}`, i, strings.Repeat(fmt.Sprint(i), 3000))
	}
	var cmds []*exec.Cmd
	outs := make([]*bytes.Buffer, procs)
	for p := range procs {
		log := fmt.Sprintf(`{"created":"2026-01-01T00:00:%02dZ","model":{"identifier":"m"},"inputs":[%s,{"name":"own.txt","content":"own %d"}],"steps":[{"type":"tool_call","tool":"t","output":"out %d"}]}`,
			p, strings.Join(shared, ","), p, p)
		name := filepath.Join(dir, fmt.Sprintf("log%d.json", p))
		if err := os.WriteFile(name, []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(e2e.Bin("ctx-pack"), name)
		cmd.Dir = dir
		outs[p] = new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = outs[p], outs[p]
		cmds = append(cmds, cmd)
	}
	var wg sync.WaitGroup
	for _, cmd := range cmds {
		wg.Add(1)
		go func() { defer wg.Done(); cmd.Run() }()
	}
	wg.Wait()
	hashes := map[string]bool{}
	for p, cmd := range cmds {
		if !cmd.ProcessState.Success() {
			t.Fatalf("ctx-pack %d failed: %s", p, outs[p])
		}
		out := outs[p].String()
		i := strings.Index(out, `"hash":"`)
		hashes[out[i+8:i+8+71]] = true
	}
	if n := checkStore(t, s); n != procs || len(hashes) != procs {
		t.Fatalf("%d packs, %d distinct hashes; want %d", n, len(hashes), procs)
	}
	latest, err := s.Ref(store.Latest)
	if err != nil || !hashes[latest.String()] {
		t.Fatalf("latest = %s, %v; not one of the packs", latest, err)
	}
	objs, _ := s.Objects("")
	// 40 shared + per process (own input, output) + manifests.
	if want := 40 + procs*3; len(objs) != want {
		t.Fatalf("%d objects, want %d", len(objs), want)
	}
	if tmp, _ := os.ReadDir(filepath.Join(s.Root(), "tmp")); len(tmp) != 0 {
		t.Fatalf("tmp/ holds %d files after clean runs", len(tmp))
	}
}

// sparse creates a file of size zero bytes without writing them.
func sparse(t *testing.T, name string, size int64) {
	t.Helper()
	f, err := os.Create(name)
	if err == nil {
		err = f.Truncate(size)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, name string, data []byte, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(name, data, perm); err != nil {
		t.Fatal(err)
	}
}

// zeros returns the digest of n zero bytes without holding them: a child's
// peak RSS on Linux includes its parent's at fork time, so the test itself
// must stay small.
func zeros(t *testing.T, n int64) digest.Digest {
	d, _, err := digest.OfReader(io.LimitReader(zeroReader{}, n))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
