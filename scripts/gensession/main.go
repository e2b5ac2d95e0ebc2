// Command gensession writes a generated Claude Code transcript of at least
// SIZE bytes (internal/packgen.ClaudeSession) to stdout, for the capture
// benchmark (scripts/bench-capture.sh); with -varied, each turn's tool
// outputs differ, as in a real session (ClaudeSessionVaried):
//
//	gensession [-size 20971520] [-varied] > session.jsonl
package main

import (
	"flag"
	"os"

	"github.com/ctx-tools/ctx/internal/packgen"
)

func main() {
	size := flag.Int("size", 20<<20, "bytes of transcript, at least")
	varied := flag.Bool("varied", false, "each turn's tool outputs differ, as in a real session")
	flag.Parse()
	gen := packgen.ClaudeSession
	if *varied {
		gen = packgen.ClaudeSessionVaried
	}
	if _, err := os.Stdout.Write(gen(*size)); err != nil {
		os.Exit(2)
	}
}
