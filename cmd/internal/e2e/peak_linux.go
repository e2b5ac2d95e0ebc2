package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// PeakRSS runs cmd to completion and returns its peak resident set size
// in KiB. getrusage's ru_maxrss of a child includes its parent's memory
// (the Go runtime starts children with vfork), so it reads the child's own
// high-water mark, VmHWM, while it runs. A non-zero exit fails t, with the
// command's stderr, unless the exit code is one of okCodes.
func PeakRSS(t testing.TB, cmd *exec.Cmd, okCodes ...int) int64 {
	t.Helper()
	var stderr bytes.Buffer
	if cmd.Stderr == nil {
		cmd.Stderr = &stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Read at once, then every millisecond: Start returns once the child
	// has exec'd (its memory its own), and a quick one may be gone by
	// the first tick.
	hwm := ProcField(cmd.Process.Pid, "status", "VmHWM:")
	for {
		select {
		case err := <-done:
			if code := cmd.ProcessState.ExitCode(); err != nil && !slices.Contains(okCodes, code) {
				t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.String())
			}
			if hwm == 0 {
				t.Fatalf("%s: could not read the process's VmHWM", strings.Join(cmd.Args, " "))
			}
			return hwm
		case <-time.After(time.Millisecond):
			if kb := ProcField(cmd.Process.Pid, "status", "VmHWM:"); kb > hwm {
				hwm = kb
			}
		}
	}
}

// ProcField returns the number after key in /proc/PID/FILE ("status",
// "io"), or 0 when it cannot be read.
func ProcField(pid int, file, key string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
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
