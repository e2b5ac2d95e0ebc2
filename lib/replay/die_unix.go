//go:build unix

package replay

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// die ends the process by sig, with its default action, so that the
// parent sees what ended it; exit status 128+sig should that not happen.
func die(sig os.Signal) {
	s, ok := sig.(syscall.Signal)
	if !ok {
		s = syscall.SIGTERM
	}
	signal.Reset(s)
	syscall.Kill(os.Getpid(), s)
	time.Sleep(time.Second)
	os.Exit(128 + int(s))
}

// nonBlock opens a named pipe without waiting for a writer.
const nonBlock = syscall.O_NONBLOCK
