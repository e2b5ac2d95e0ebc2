package main

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
)

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// TestTerminalStdin: ctx-pack with no LOG and a terminal on stdin says it
// is reading a log from it, rather than wait in silence; piped, it says
// nothing.
func TestTerminalStdin(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command(e2e.Bin("ctx-init"), dir).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(e2e.Bin("ctx-pack"))
	cmd.Dir = dir
	var stderr lockedBuffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, &bytes.Buffer{}, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(stderr.String(), "end it with Ctrl-D") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	// The log, then end of input (Ctrl-D at the start of a line).
	master.Write([]byte(`{"model":{"identifier":"m"},"steps":[],"created":"2026-01-01T00:00:00Z"}` + "\n\x04"))
	err := cmd.Wait()
	if !strings.Contains(stderr.String(), "ctx-pack: reading an execution log from stdin (the terminal); end it with Ctrl-D") {
		t.Errorf("stderr = %q, want the hint", stderr.String())
	}
	if err != nil {
		t.Errorf("ctx-pack: %v\n%s", err, stderr.String())
	}

	piped := exec.Command(e2e.Bin("ctx-pack"))
	piped.Dir = dir
	piped.Stdin = strings.NewReader(`{"model":{"identifier":"m"},"steps":[],"created":"2026-01-01T00:00:00Z"}`)
	out, err := piped.CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("Ctrl-D")) {
		t.Errorf("piped: %v, %s", err, out)
	}
}

// lockedBuffer is a bytes.Buffer that the process's stderr copier writes
// while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
