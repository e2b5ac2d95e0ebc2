// Package testsys gives tests and benchmarks the few system facilities
// that exist only on some systems, so that every package's tests build
// everywhere and skip, saying why, where a facility is missing.
package testsys

import (
	"errors"
	"time"
)

// ErrUnsupported reports a facility this system does not have.
var ErrUnsupported = errors.ErrUnsupported

// CPUTime returns the process's user and system CPU time so far, or 0
// where it cannot be read: on a shared machine wall time measures the
// neighbours, CPU time measures the code.
func CPUTime() time.Duration { return cpuTime() }

// Mkfifo creates a named pipe at path (ErrUnsupported where there are
// none): tests use one as a file that blocks whoever opens it to read.
func Mkfifo(path string) error { return mkfifo(path) }
