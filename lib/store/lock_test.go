package store

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
)

// TestHelperHoldRef is not a test: run by TestCrashedHolder in a child
// process, it takes the lock of refs/latest, says so and waits to be
// killed.
func TestHelperHoldRef(t *testing.T) {
	dir := os.Getenv("CTX_TEST_HOLD_REF")
	if dir == "" {
		t.Skip("helper process for TestCrashedHolder")
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.UpdateRef(Latest, func(*digest.Digest) (digest.Digest, error) {
		os.Stdout.WriteString("held\n")
		time.Sleep(time.Hour)
		return digest.Digest{}, nil
	})
}

// TestCrashedHolder kills (SIGKILL) a process in the middle of a ref update:
// the next update must not wait for, or trip over, what it left.
func TestCrashedHolder(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	s := newStore(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldRef$")
	cmd.Env = append(os.Environ(), "CTX_TEST_HOLD_REF="+s.Root())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "held\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper said %q, %v", line, err)
	}
	// While it lives, the lock holds.
	defer func(old time.Duration) { LockTimeout = old }(LockTimeout)
	LockTimeout = 100 * time.Millisecond
	d := digest.Of([]byte("after"))
	set := func(*digest.Digest) (digest.Digest, error) { return d, nil }
	if err := s.UpdateRef(Latest, set); err == nil {
		t.Fatal("UpdateRef succeeded while another process held the ref's lock")
	}
	cmd.Process.Kill()
	cmd.Wait()
	LockTimeout = 2 * time.Second
	if err := s.UpdateRef(Latest, set); err != nil {
		t.Fatalf("UpdateRef after the holder was killed: %v", err)
	}
	if got, err := s.Ref(Latest); err != nil || got != d {
		t.Fatalf("Ref = %s, %v; want %s", got, err, d)
	}
	// Nothing is left in refs/ but refs.
	ents, _ := os.ReadDir(filepath.Join(s.Root(), "refs"))
	for _, e := range ents {
		if e.Name() != "latest" && e.Name() != "tags" {
			t.Errorf("refs/ holds %s after the update", e.Name())
		}
	}
}
