// Command genedits fills a new store with coding sessions for ctx-blame's
// benchmark (internal/packgen.Edits) and writes the big file they edited:
//
//	genedits [-n 1000] [-lines 2000] DIR
//
// makes DIR/.ctx with the packs and DIR/big.go.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/lib/store"
)

func main() {
	n := flag.Int("n", 1000, "number of packs")
	lines := flag.Int("lines", 2000, "lines of big.go")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genedits [-n N] [-lines L] DIR")
		os.Exit(3)
	}
	dir := flag.Arg(0)
	s, _, err := store.Init(filepath.Join(dir, ".ctx"))
	if err == nil {
		var content []byte
		if _, content, err = packgen.Edits(s, *n, *lines); err == nil {
			err = os.WriteFile(filepath.Join(dir, "big.go"), content, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genedits:", err)
		os.Exit(2)
	}
}
