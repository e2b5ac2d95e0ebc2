package main

import (
	"os"
	"testing"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
)

func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }

func TestScripts(t *testing.T) { e2e.Run(t, "testdata/script") }

func TestHelpFlag(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"  -n, --max-count=N    Show at most N packs.\n", "--max-count"},
		{"      --human          Print the readable rendering.\n", "--human"},
		{"\t--store=DIR\n", "--store"},
		{"  --dry-run2 x", "--dry-run2"},
		{"--usage day|week sums tokens\n", ""}, // not indented: prose
		{"  -n N\n", ""},
		{"  --X\n", ""},
		{"  --\n", ""},
		{"\n", ""},
	} {
		got, ok := helpFlag(tc.line)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("helpFlag(%q) = %q, %v; want %q", tc.line, got, ok, tc.want)
		}
	}
}
