//go:build unix

package secrets

import "syscall"

// cpuTime is the CPU time (user and system) the process has used, in ns:
// on a shared machine, what the work costs when wall time mostly
// measures the others.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
