// Command genpacks fills a ctx store with many small packs, the fixture
// of scripts/bench-log.sh:
//
//	go run ./scripts/genpacks -n 100000 DIR
//
// DIR/.ctx is created if needed; latest is set to the newest pack. It
// prints how many packs it wrote and how long that took on stderr.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

func main() {
	n := flag.Int("n", 100000, "number of packs")
	chain := flag.Int("chain", 10, "packs per parent chain")
	same := flag.Int("same", 1, "packs sharing one created time")
	workers := flag.Int("workers", 0, "concurrent writers (default 2·GOMAXPROCS)")
	content := flag.Int("content", 0, "bytes of distinct text in each pack (for searches; default none)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: genpacks [-n N] [-chain N] [-same N] [-content BYTES] DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(3)
	}
	s, _, err := store.Init(filepath.Join(flag.Arg(0), store.DirName))
	if err != nil {
		fmt.Fprintln(os.Stderr, "genpacks: error:", err)
		os.Exit(2)
	}
	start := time.Now()
	ds, err := packgen.Generate(s, packgen.Options{N: *n, Chain: *chain, Same: *same, Workers: *workers, Content: *content})
	if err != nil {
		fmt.Fprintln(os.Stderr, "genpacks: error:", err)
		os.Exit(2)
	}
	if len(ds) > 0 {
		// latest names the newest pack, the end of the last chain.
		last := ds[len(ds)-1]
		if err := s.UpdateRef(store.Latest, func(*digest.Digest) (digest.Digest, error) { return last, nil }); err != nil {
			fmt.Fprintln(os.Stderr, "genpacks: error:", err)
			os.Exit(2)
		}
	}
	fmt.Fprintf(os.Stderr, "genpacks: %d packs in %s\n", len(ds), time.Since(start).Round(time.Millisecond))
}
