// Command gensession writes a generated Claude Code transcript of at least
// SIZE bytes (internal/packgen.ClaudeSession) to stdout, for the capture
// benchmark (scripts/bench-capture.sh):
//
//	gensession [-size 20971520] > session.jsonl
package main

import (
	"flag"
	"os"

	"github.com/ctx-tools/ctx/internal/packgen"
)

func main() {
	size := flag.Int("size", 20<<20, "bytes of transcript, at least")
	flag.Parse()
	if _, err := os.Stdout.Write(packgen.ClaudeSession(*size)); err != nil {
		os.Exit(2)
	}
}
