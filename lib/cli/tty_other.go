//go:build !linux

package cli

import (
	"errors"
	"os"
)

// isTTY trusts the character-device check where TCGETS is not available.
func isTTY(uintptr) bool { return true }

// readHidden cannot turn echo off here, so it refuses rather than show a
// passphrase as it is typed.
func readHidden(*os.File, string) ([]byte, error) {
	return nil, errors.New("cannot read a passphrase without echo on this system; set it in the environment")
}
