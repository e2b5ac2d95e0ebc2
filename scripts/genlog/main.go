// Command genlog writes synthetic execution logs for scripts/bench.sh:
//
//	genlog -inputs N -size BYTES [-steps M] [-files DIR] > log.json
//
// Each input's content is distinct and deterministic; with -steps, M
// read_file steps each read one input and record a distinct output. With -files, every
// input's content is also written to DIR/<i> (for the git anchor).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

func main() {
	inputs := flag.Int("inputs", 5, "number of inputs")
	size := flag.Int("size", 1024, "bytes per input")
	steps := flag.Int("steps", 0, "number of read_file steps")
	files := flag.String("files", "", "also write each input's content to this directory")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	fmt.Fprint(w, `{"created":"2026-01-01T00:00:00Z","model":{"identifier":"bench"},"steps":[`)
	buf := make([]byte, *size)
	for i := range *steps {
		content(buf, *inputs+i)
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `{"type":"tool_call","tool":"read_file","parameters":{"path":"in/%d.txt"},"output":"%s"}`, i%max(*inputs, 1), buf)
	}
	fmt.Fprint(w, `],"inputs":[`)
	for i := range *inputs {
		content(buf, i)
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `{"name":"in/%d.txt","content":"%s"}`, i, buf)
		if *files != "" {
			if err := os.WriteFile(filepath.Join(*files, strconv.Itoa(i)), buf, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
	}
	fmt.Fprint(w, "]}\n")
}

// content fills buf with printable text unique to i (no JSON escapes).
func content(buf []byte, i int) {
	x := uint64(i)*0x9E3779B97F4A7C15 + 1
	for j := range buf {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		buf[j] = 'a' + byte(x%26)
	}
}
