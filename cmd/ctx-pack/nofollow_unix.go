//go:build unix

package main

import "syscall"

// syscallNoFollow keeps hook.log from being a symlink to elsewhere.
const syscallNoFollow = syscall.O_NOFOLLOW
