package main

// Tests that watch a running ctx-pack through /proc.

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
	"github.com/ctx-tools/ctx/lib/store"
)

// Input sizes: large enough that streaming and an interrupted write are
// real (the kill lands after 1 MiB of hundreds), small enough that the
// writes and fsyncs stay quick on a shared disk.
const (
	killSize = 256 << 20
	bigSize  = 256 << 20
)

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
	sparse(t, big, killSize) // cheap to create, real to hash and copy
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
	if has, _ := s.Has(zeros(t, killSize)); has {
		t.Fatal("the interrupted object is in objects/")
	}
	if out, err := exec.Command(e2e.Bin("ctx-pack"), "--store", s.Root(), log).CombinedOutput(); err != nil {
		t.Fatalf("pack after crash: %v\n%s", err, out)
	}
	if n := checkStore(t, s); n != 2 {
		t.Fatalf("%d packs, want 2", n)
	}
}

// TestLargePathBoundedMemory packs a 256 MiB file named by path and checks
// the process's peak resident memory stays far below the input's size: a
// quarter of it, where streaming needs a few MiB.
func TestLargePathBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("packs 256 MiB")
	}
	dir, s := initStore(t)
	big := filepath.Join(dir, "big.bin")
	sparse(t, big, bigSize)
	log := filepath.Join(dir, "big.json")
	writeFile(t, log, []byte(`{"created":"2026-01-02T00:00:00Z","model":{"identifier":"m"},"inputs":[{"name":"big.bin","path":"big.bin"}],"steps":[]}`), 0o644)
	// Measure the binary users run, not one carrying race shadow memory.
	hwm := e2e.PeakRSS(t, exec.Command(e2e.PlainBin(t, "ctx-pack"), "--store", s.Root(), log))
	const limit = bigSize >> 2 >> 10 // KiB
	if hwm > limit {
		t.Fatalf("peak RSS %d MiB packing a %d MiB file, want < %d MiB", hwm>>10, bigSize>>20, limit>>10)
	}
	t.Logf("peak RSS %d MiB", hwm>>10)
	if ok, _ := s.Has(zeros(t, bigSize)); !ok {
		t.Fatal("the large object is not stored")
	}
}

// writtenBytes returns how many bytes a running process has written
// (wchar in /proc/PID/io), or 0 if it cannot be read.
func writtenBytes(pid int) int64 { return e2e.ProcField(pid, "io", "wchar:") }

// TestImportOneLineBoundedMemory imports logs of one 64 MiB line (an
// OpenAI exchange whose message is one long string, an Inspect log whose
// message has a line break every few bytes) and checks the process's peak
// resident memory stays within five times the input: the import once
// copied the text at every stage (the parsed input, the encoded log, its
// canonical copy, the reordered members) and took eight times it.
func TestImportOneLineBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 64 MiB logs")
	}
	const size = 64 << 20
	dir, s := initStore(t)
	for _, c := range []struct{ name, from, log string }{
		{"chat.json", "openai-chat", `{"request":{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("x", size) +
			`"}]},"response":{"object":"chat.completion","created":1767225600,"model":"m","choices":[{"message":{"role":"assistant","content":"ok"}}]}}`},
		{"eval.json", "inspect", `{"version":2,"eval":{"model":"m","created":"2026-01-01T00:00:00Z"},"samples":[{"id":1,"epoch":1,"messages":[{"role":"user","content":"` +
			strings.Repeat(`abc def\n`, size/9) + `"},{"role":"assistant","content":"ok"}]}]}`},
	} {
		log := filepath.Join(dir, c.name)
		writeFile(t, log, []byte(c.log), 0o644)
		hwm := e2e.PeakRSS(t, exec.Command(e2e.PlainBin(t, "ctx-pack"), "--store", s.Root(), "--from", c.from, log))
		if limit := int64(5*len(c.log)) >> 10; hwm > limit {
			t.Errorf("%s: peak RSS %d MiB importing a %d MiB line, want < %d MiB", c.name, hwm>>10, len(c.log)>>20, limit>>10)
		}
		t.Logf("%s: peak RSS %d MiB for %d MiB", c.name, hwm>>10, len(c.log)>>20)
	}
}
