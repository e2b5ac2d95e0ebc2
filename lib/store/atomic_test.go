package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctx-tools/ctx/lib/store"
)

// atomicEnv, in the environment of this test binary run again, names the
// point of WriteFileAtomic at which it kills itself, and the file it
// writes.
const atomicEnv = "CTX_STORE_TEST_ATOMIC_AT"

// TestWriteFileAtomicCrash kills a process replacing a file at each point
// of WriteFileAtomic: before the rename the old file is whole under the
// name (the new bytes only in a temporary file beside it), after it the
// new one is.
func TestWriteFileAtomicCrash(t *testing.T) {
	if point := os.Getenv(atomicEnv); point != "" {
		killAt(point)
		err := store.WriteFileAtomic(os.Getenv(atomicEnv+"_FILE"), []byte("new\n"), 0o644)
		fmt.Printf("not killed at %s: %v\n", point, err)
		os.Exit(0)
	}
	for _, c := range []struct{ point, want string }{
		{"atomic-written", "old\n"},
		{"atomic-named", "new\n"},
	} {
		t.Run(c.point, func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, "config.json")
			if err := os.WriteFile(name, []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestWriteFileAtomicCrash$")
			cmd.Env = append(os.Environ(), atomicEnv+"="+c.point, atomicEnv+"_FILE="+name)
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "killed at "+c.point) {
				t.Fatalf("the writing process was not killed at %s: %v\n%s", c.point, err, out)
			}
			if b, err := os.ReadFile(name); err != nil || string(b) != c.want {
				t.Fatalf("after a crash at %s: %q, %v; want %q", c.point, b, err, c.want)
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if e.Name() != "config.json" && !strings.HasPrefix(e.Name(), ".tmp-config.json-") {
					t.Errorf("after a crash at %s: %s left beside the file", c.point, e.Name())
				}
			}
		})
	}
}

// TestWriteFileAtomicWhole has a reader read a file while it is replaced
// again and again: it only ever finds one of the files written, whole.
func TestWriteFileAtomicWhole(t *testing.T) {
	name := filepath.Join(t.TempDir(), "page.html")
	a, b := bytes.Repeat([]byte("a"), 1<<20), bytes.Repeat([]byte("b"), 3<<19)
	if err := store.WriteFileAtomic(name, a, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			got, err := os.ReadFile(name)
			if err != nil || !bytes.Equal(got, a) && !bytes.Equal(got, b) {
				t.Errorf("read %d bytes (%v), neither file whole", len(got), err)
				return
			}
		}
	}()
	for i := range 50 {
		data := a
		if i%2 == 0 {
			data = b
		}
		if err := (store.WriteOptions{Perm: 0o600, NoSync: true}).WriteFile(name, data[:len(data)/2], data[len(data)/2:]); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if fi, err := os.Stat(name); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v; want 0600", fi.Mode(), err)
	}
}

// TestWriteFileAtomicFailure: a write that fails leaves the old file and
// no temporary one.
func TestWriteFileAtomicFailure(t *testing.T) {
	dir := t.TempDir()
	// A directory cannot be renamed over: the rename fails.
	busy := filepath.Join(dir, "busy")
	if err := os.MkdirAll(filepath.Join(busy, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := store.WriteFileAtomic(busy, []byte("new"), 0o644); err == nil {
		t.Fatal("replacing a directory: no error")
	}
	if fi, err := os.Stat(busy); err != nil || !fi.IsDir() {
		t.Fatalf("%s is no longer the directory it was: %v", busy, err)
	}
	// An existing file is kept, not replaced, with NoReplace.
	kept := filepath.Join(dir, "kept")
	os.WriteFile(kept, []byte("old"), 0o644)
	err := store.WriteOptions{Perm: 0o644, NoReplace: true}.WriteFile(kept, []byte("new"))
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("NoReplace over an existing file: %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(kept); string(b) != "old" {
		t.Fatalf("NoReplace changed the file: %q", b)
	}
	// Nowhere to make the temporary file: nothing is written.
	missing := filepath.Join(dir, "missing", "file")
	if err := store.WriteFileAtomic(missing, []byte("new"), 0o644); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("writing into a missing directory: %v, want fs.ErrNotExist", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Fatalf("left in the directory: %v, want busy and kept only", ents)
	}
}

// TestWriteFileAtomicRoot: through an os.Root, a symlink cannot lead the
// write out of the directory.
func TestWriteFileAtomicRoot(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Skip(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := (store.WriteOptions{Perm: 0o644, Root: root}).WriteFile("out/f", []byte("x")); err == nil {
		t.Fatal("wrote through a symlink out of the root")
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("written outside the root: %v", ents)
	}
	if err := (store.WriteOptions{Perm: 0o644, Root: root}).WriteFile("f", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "x" {
		t.Fatalf("f holds %q", b)
	}
}
