//go:build !unix

package testsys

import "time"

func cpuTime() time.Duration { return 0 }

func mkfifo(string) error { return ErrUnsupported }
