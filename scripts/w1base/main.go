//go:build linux

// Command w1base is the baseline of the W1 benchmark (scripts/bench-pack.sh):
// the least a Go program can do to leave on disk, durably, what
// `ctx-init && ctx-pack` leaves for W1's log (5 inputs of 1 KiB, 10
// steps): a .ctx directory with config.json, 16 objects in 16 fan-out
// directories, a packs/ entry and refs/latest, with the same syncs ctx
// makes (fsyncs of config.json's bytes, of DIR and of the store; then one
// syncfs for the objects and the entry's and the ref's bytes, an fsync of
// packs/ once the entry is named, and one of refs/ once the ref is). It
// parses nothing, hashes what it writes, and has no command line to
// speak of:
//
//	w1base DIR
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

func main() {
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "w1base:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	root := filepath.Join(dir, ".ctx")
	for _, d := range []string{"", "objects", "packs", "refs", "refs/tags", "tmp"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			return err
		}
	}
	config := filepath.Join(root, ".tmp-config")
	if err := write(config, []byte(`{"hash":"sha256","version":1}`+"\n")); err != nil {
		return err
	}
	if err := syncDir(config); err != nil {
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	if err := os.Rename(config, filepath.Join(root, "config.json")); err != nil {
		return err
	}
	if err := syncDir(root); err != nil {
		return err
	}
	var last string
	for i := range 16 {
		size := 1024
		if i == 15 {
			size = 3500 // the manifest
		}
		b := make([]byte, size)
		for j := range b {
			b[j] = 'a' + byte((i*131+j*7)%26)
		}
		sum := sha256.Sum256(b)
		name := hex.EncodeToString(sum[:])
		if err := os.Mkdir(filepath.Join(root, "objects", name[:2]), 0o755); err != nil && !os.IsExist(err) {
			return err
		}
		if err := os.WriteFile(filepath.Join(root, "objects", name[:2], name[2:]), b, 0o444); err != nil {
			return err
		}
		last = name
	}
	entry, ref := filepath.Join(root, "packs", ".tmp-entry"), filepath.Join(root, "tmp", "ref")
	if err := write(entry, []byte(`{"hash":"sha256:`+last+`"}`)); err != nil {
		return err
	}
	if err := write(ref, []byte("sha256:"+last+"\n")); err != nil {
		return err
	}
	if err := syncFS(root); err != nil {
		return err
	}
	if err := os.Rename(entry, filepath.Join(root, "packs", last)); err != nil {
		return err
	}
	if err := syncDir(filepath.Join(root, "packs")); err != nil {
		return err
	}
	if err := os.Rename(ref, filepath.Join(root, "refs", "latest")); err != nil {
		return err
	}
	return syncDir(filepath.Join(root, "refs"))
}

func syncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}

func write(name string, b []byte) error {
	return os.WriteFile(name, b, 0o444)
}

func syncDir(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
