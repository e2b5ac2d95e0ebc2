// Command capfloor is the floor under re-packing a grown session
// (scripts/bench-capture.sh FLOOR=1): the least a re-pack must do, with
// no importing at all, under two layouts of a pack's manifest.
//
//	capfloor one TRANSCRIPT MANIFEST DIR
//	capfloor prepare MANIFEST DIR
//	capfloor chunked TRANSCRIPT DIR
//
// MANIFEST is the object file of the last pack's manifest, TRANSCRIPT the
// session it was packed from, DIR a directory on the store's file system
// (its tmp/). Both layouts read the transcript and hash it whole, as a
// checkpoint is trusted only for bytes that hash as it says. "prepare"
// (not timed) writes into DIR what "chunked" reads: the manifest of the
// chunked layout (head) and its last chunk (last).
//
// "one" is the layout of docs/design.md §4: the manifest is one object
// holding every step, so the last one is read and hashed (its bytes
// become the new one's, and must be what its name says) and the new one,
// as long, written and hashed.
//
// "chunked" is a layout where the steps live in objects of about 1 MiB
// of step entries each and the manifest names them: only the last chunk
// and a manifest without the steps (the rest of the document, and one
// reference per chunk) are written and hashed, and only the last
// manifest's own bytes (as long as the new one's) are read back and
// hashed. Reading the last chunk stands for making its steps.
//
// It prints nothing but a line on stderr saying what it wrote.
package main

import (
	"crypto/sha256"
	"fmt"
	"os"

	"github.com/tidwall/gjson"
)

// chunk is the step bytes a chunk of the "chunked" layout holds.
const chunk = 1 << 20

// refSize is what naming one chunk takes in a manifest: a reference and
// the number of steps in it.
const refSize = len(`{"count":1000,"ref":"sha256:`) + 64 + len(`"},`)

func main() {
	var err error
	switch a := os.Args[1:]; {
	case len(a) == 4 && a[0] == "one":
		err = one(a[1], a[2], a[3])
	case len(a) == 3 && a[0] == "prepare":
		err = prepare(a[1], a[2])
	case len(a) == 3 && a[0] == "chunked":
		err = chunked(a[1], a[2])
	default:
		fmt.Fprintln(os.Stderr, "usage: capfloor one TRANSCRIPT MANIFEST DIR | prepare MANIFEST DIR | chunked TRANSCRIPT DIR")
		os.Exit(3)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "capfloor:", err)
		os.Exit(2)
	}
}

// transcript reads the transcript and hashes it.
func transcript(name string) error {
	t, err := os.ReadFile(name)
	sha256.Sum256(t)
	return err
}

func one(tr, manifest, dir string) error {
	if err := transcript(tr); err != nil {
		return err
	}
	m, err := os.ReadFile(manifest)
	if err != nil {
		return err
	}
	sha256.Sum256(m) // the last manifest, verified
	if err := write(dir, m); err != nil {
		return err
	}
	sha256.Sum256(m) // the new one, named
	fmt.Fprintf(os.Stderr, "one object: %d bytes read back, %d written\n", len(m), len(m))
	return nil
}

func prepare(manifest, dir string) error {
	m, err := os.ReadFile(manifest)
	if err != nil {
		return err
	}
	steps := gjson.GetBytes(m, "steps")
	if !steps.IsArray() || steps.Index == 0 {
		return fmt.Errorf("%s: no steps array", manifest)
	}
	// The chunks: consecutive steps up to chunk bytes each. The last is
	// the one a new reply changes.
	var starts []int
	size := chunk
	steps.ForEach(func(_, s gjson.Result) bool {
		if size+len(s.Raw) > chunk {
			starts = append(starts, s.Index)
			size = 0
		}
		size += len(s.Raw) + 1
		return true
	})
	end := steps.Index + len(steps.Raw)
	last := m[starts[len(starts)-1] : end-1]
	// The manifest without its steps, naming the chunks.
	head := append(append([]byte{}, m[:steps.Index]...), m[end:]...)
	head = append(head, make([]byte, refSize*len(starts))...)
	if err := os.WriteFile(dir+"/head", head, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "chunked: %d chunks; the manifest %d bytes, the last chunk %d\n", len(starts), len(head), len(last))
	return os.WriteFile(dir+"/last", last, 0o644)
}

func chunked(tr, dir string) error {
	if err := transcript(tr); err != nil {
		return err
	}
	head, err := os.ReadFile(dir + "/head")
	if err != nil {
		return err
	}
	sha256.Sum256(head) // the last manifest, verified
	last, err := os.ReadFile(dir + "/last")
	if err != nil {
		return err
	}
	for _, b := range [][]byte{last, head} {
		if err := write(dir, b); err != nil {
			return err
		}
		sha256.Sum256(b)
	}
	return nil
}

// write writes b to a new file in dir and removes it: the copy into the
// page cache an object's write costs, without the rename.
func write(dir string, b []byte) error {
	f, err := os.CreateTemp(dir, "capfloor-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
