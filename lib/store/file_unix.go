//go:build unix

package store

import "syscall"

// openFlags make an open fail on a final symlink (ELOOP) and return at
// once on a named pipe, whose type is then checked.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
