//go:build unix

package found

import (
	"errors"
	"syscall"
)

// openFlags make an open fail on a final symlink (ELOOP) and return at
// once on a named pipe, whose type is then checked.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
