package cli

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// PassphraseVars are the variables a key's passphrase is read from, in
// order: ctx's own, then cosign's (set for cosign sign and attest, so
// the same environment signs with ctx).
var PassphraseVars = []string{"CTX_KEY_PASSPHRASE", "COSIGN_PASSWORD"}

// Passphrase returns the passphrase of the encrypted key file key: from
// the first of PassphraseVars that is set (even to the empty string, as
// cosign reads COSIGN_PASSWORD), else, when stdin is a terminal, asked
// for on it with echo off, as ssh-keygen and cosign ask. Otherwise it is a
// usage error that says what to set.
func (e *Env) Passphrase(key string) ([]byte, error) {
	for _, v := range PassphraseVars {
		if p, ok := os.LookupEnv(v); ok {
			return []byte(p), nil
		}
	}
	noTTY := WithHint(Errorf(ExitUsage, "the key is encrypted with a passphrase, and stdin is not a terminal to ask for it on"), "set "+strings.Join(PassphraseVars, " or ")+" to the passphrase")
	if !isTerminal(e.Stdin) {
		return nil, noTTY
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, noTTY
	}
	defer tty.Close()
	p, err := readHidden(tty, "Enter passphrase for "+Escape(key)+": ")
	fmt.Fprintln(tty)
	if err != nil {
		return nil, fmt.Errorf("reading the passphrase of %s: %w", key, err)
	}
	return p, nil
}

// readLine reads one line from f, without its line ending.
func readLine(f *os.File) ([]byte, error) {
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return nil, err
	}
	return []byte(strings.TrimRight(line, "\r\n")), nil
}
