package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunToolDiesWithParent: a child started by RunTool is killed when
// its parent is SIGKILLed, rather than left running under init. The test
// binary plays the parent: started again with CTX_TEST_RUNTOOL_PARENT,
// it runs a long sleep with RunTool, which writes its PID.
func TestRunToolDiesWithParent(t *testing.T) {
	if pidFile := os.Getenv("CTX_TEST_RUNTOOL_PARENT"); pidFile != "" {
		// The child writes its own PID, then becomes the sleep.
		cmd := exec.Command("sh", "-c", `echo $$ >"$0" && exec sleep 60`, pidFile)
		RunTool(cmd)
		os.Exit(0)
	}
	for _, p := range []string{"sh", "sleep"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("no %s", p)
		}
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	parent := exec.Command(os.Args[0], "-test.run=^TestRunToolDiesWithParent$")
	parent.Env = append(os.Environ(), "CTX_TEST_RUNTOOL_PARENT="+pidFile)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	var child int
	for deadline := time.Now().Add(20 * time.Second); child == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			parent.Process.Kill()
			t.Fatal("the parent did not start its child")
		}
		b, _ := os.ReadFile(pidFile)
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	parent.Process.Kill()
	parent.Wait()
	for deadline := time.Now().Add(5 * time.Second); alive(child); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(child, syscall.SIGKILL) // the sleep this test started
			t.Fatalf("the child %d still runs after its parent was killed", child)
		}
	}
}

// alive reports whether the process pid runs (a zombie does not).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
