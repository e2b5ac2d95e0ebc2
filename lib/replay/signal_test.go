//go:build unix

package replay

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestHelperBlocked is not a test: run by TestInterruptBlocked in a child
// process, it makes a workspace, says so, and blocks as a read of a
// hostile file would, without looking at its context.
func TestHelperBlocked(t *testing.T) {
	dir := os.Getenv("CTX_TEST_BLOCKED_DIR")
	if dir == "" {
		t.Skip("helper process for TestInterruptBlocked")
	}
	ws := filepath.Join(dir, "ctx-replay-ws")
	Interrupt(500*time.Millisecond, func() { os.RemoveAll(ws) }, func(ctx context.Context) error {
		os.Mkdir(ws, 0o755)
		os.Stdout.WriteString("blocked\n")
		select {} // a system call that never returns
	})
}

// TestInterruptBlocked sends SIGTERM to a replay blocked where the
// context cannot reach: it must end, by the signal, and remove its
// workspace.
func TestInterruptBlocked(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBlocked$")
		cmd.Env = append(os.Environ(), "CTX_TEST_BLOCKED_DIR="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "blocked\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("helper said %q, %v", line, err)
		}
		cmd.Process.Signal(sig)
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		select {
		case err := <-waited:
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("%v: helper ended with %v, want death by the signal", sig, err)
			}
			if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != sig {
				t.Errorf("%v: helper ended with %v, want death by the signal", sig, err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-waited
			t.Fatalf("%v: a blocked replay ignores the signal", sig)
		}
		if _, err := os.Stat(filepath.Join(dir, "ctx-replay-ws")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: the workspace is left behind (%v)", sig, err)
		}
	}
}
