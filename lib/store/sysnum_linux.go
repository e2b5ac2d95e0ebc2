//go:build linux && !amd64 && !386

package store

import "syscall"

const sysSyncfs = syscall.SYS_SYNCFS
