// Command gensession writes a generated session transcript of at least
// SIZE bytes to stdout, for the capture benchmark
// (scripts/bench-capture.sh): a Claude Code transcript
// (internal/packgen.ClaudeSession; with -varied, each turn's tool outputs
// differ, as in a real session: ClaudeSessionVaried), or with
// -format codex a Codex rollout (CodexSession, whose tool outputs always
// differ from turn to turn):
//
//	gensession [-format claude-code|codex] [-size 20971520] [-varied] > session.jsonl
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ctx-tools/ctx/internal/packgen"
)

func main() {
	format := flag.String("format", "claude-code", "the transcript's format: claude-code or codex")
	size := flag.Int("size", 20<<20, "bytes of transcript, at least")
	varied := flag.Bool("varied", false, "each turn's tool outputs differ, as in a real session (claude-code; codex's always do)")
	flag.Parse()
	var gen func(int) []byte
	switch *format {
	case "claude-code":
		gen = packgen.ClaudeSession
		if *varied {
			gen = packgen.ClaudeSessionVaried
		}
	case "codex":
		gen = packgen.CodexSession
	default:
		fmt.Fprintf(os.Stderr, "gensession: unknown format %q (claude-code or codex)\n", *format)
		os.Exit(3)
	}
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "gensession: unexpected argument %q\n", flag.Arg(0))
		os.Exit(3)
	}
	if _, err := os.Stdout.Write(gen(*size)); err != nil {
		os.Exit(2)
	}
}
