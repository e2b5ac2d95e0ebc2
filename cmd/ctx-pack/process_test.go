package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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

// TestKilledPack kills ctx-pack with SIGKILL while it streams a large
// input into an object, then checks that the store holds no torn object
// and no pack entry, latest is unchanged, and the next pack succeeds.
func TestKilledPack(t *testing.T) {
	dir, s := initStore(t)
	first := filepath.Join(dir, "first.json")
	writeFile(t, first, []byte(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"steps":[]}`), 0o644)
	if out, err := exec.Command(e2e.Bin("ctx-pack"), "--store", s.Root(), first).CombinedOutput(); err != nil {
		t.Fatalf("first pack: %v\n%s", err, out)
	}
	before, _ := s.Ref(store.Latest)

	big := filepath.Join(dir, "big.bin")
	sparse(t, big, 512<<20) // cheap to create, real to hash and copy
	log := filepath.Join(dir, "big.json")
	writeFile(t, log, []byte(`{"created":"2026-01-02T00:00:00Z","model":{"identifier":"m"},"inputs":[{"name":"big.bin","path":"big.bin"}],"steps":[]}`), 0o644)

	cmd := exec.Command(e2e.Bin("ctx-pack"), "--store", s.Root(), log)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if writtenBytes(cmd.Process.Pid) > 1<<20 {
			cmd.Process.Signal(syscall.SIGKILL)
			killed = true
			break
		}
	}
	err := cmd.Wait()
	if !killed || err == nil {
		t.Fatalf("could not kill ctx-pack mid-write (killed=%v, wait=%v)", killed, err)
	}

	if n := checkStore(t, s); n != 1 {
		t.Fatalf("%d packs after the crash, want 1", n)
	}
	if after, _ := s.Ref(store.Latest); after != before {
		t.Fatalf("latest moved to %s", after)
	}
	if has, _ := s.Has(zeros(t, 512<<20)); has {
		t.Fatal("the interrupted object is in objects/")
	}
	if out, err := exec.Command(e2e.Bin("ctx-pack"), "--store", s.Root(), log).CombinedOutput(); err != nil {
		t.Fatalf("pack after crash: %v\n%s", err, out)
	}
	if n := checkStore(t, s); n != 2 {
		t.Fatalf("%d packs, want 2", n)
	}
}

// writtenBytes returns how many bytes a running process has written
// (wchar in /proc/PID/io), or 0 if it cannot be read.
func writtenBytes(pid int) int64 {
	return procField(fmt.Sprintf("/proc/%d/io", pid), "wchar:")
}

// vmHWM returns the peak resident set size in KiB of a running process,
// or 0 if it cannot be read.
func vmHWM(pid int) int64 {
	return procField(fmt.Sprintf("/proc/%d/status", pid), "VmHWM:")
}

// procField returns the number after key in a /proc file, or 0.
func procField(name, key string) int64 {
	b, err := os.ReadFile(name)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
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

// TestLargePathBoundedMemory packs a 1 GiB file named by path and checks
// the process's peak resident memory stays far below the input's size.
func TestLargePathBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("packs 1 GiB")
	}
	dir, s := initStore(t)
	big := filepath.Join(dir, "big.bin")
	sparse(t, big, 1<<30)
	log := filepath.Join(dir, "big.json")
	writeFile(t, log, []byte(`{"created":"2026-01-02T00:00:00Z","model":{"identifier":"m"},"inputs":[{"name":"big.bin","path":"big.bin"}],"steps":[]}`), 0o644)
	bin := e2e.Bin("ctx-pack")
	if e2e.Race {
		// Measure the binary users run, not one carrying race shadow memory.
		bin = filepath.Join(t.TempDir(), "ctx-pack")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			t.Fatalf("building ctx-pack without -race: %v\n%s", err, out)
		}
	}
	cmd := exec.Command(bin, "--store", s.Root(), log)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// getrusage's ru_maxrss of a child includes its parent's memory (the
	// Go runtime starts children with vfork), so read the child's own
	// high-water mark, VmHWM, while it runs.
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var hwm int64
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			running = false
		case <-time.After(2 * time.Millisecond):
			if kb := vmHWM(cmd.Process.Pid); kb > hwm {
				hwm = kb
			}
		}
	}
	const limit = 100 << 10 // KiB
	if hwm == 0 {
		t.Fatal("could not read the process's VmHWM")
	}
	if hwm > limit {
		t.Fatalf("peak RSS %d MiB packing a 1 GiB file, want < %d MiB", hwm>>10, limit>>10)
	}
	t.Logf("peak RSS %d MiB", hwm>>10)
	if ok, _ := s.Has(zeros(t, 1<<30)); !ok {
		t.Fatal("the 1 GiB object is not stored")
	}
}
