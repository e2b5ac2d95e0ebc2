//go:build !linux

package store

import "sync/atomic"

// noUnnamed mirrors the Linux switch so that tests build everywhere.
var noUnnamed atomic.Bool
