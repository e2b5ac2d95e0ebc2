package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/packgen"
	"github.com/ctx-tools/ctx/internal/packgen/importlog"
	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/packlog"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/store"
)

// ctx-diff B and a pack line on stdin (B loaded first, A found from it
// and taking its steps) print, byte for byte and with the same exit code,
// what ctx-diff A B (A loaded first, B taking its steps) prints, on the
// snapshots and forks of generated agent sessions (the 25th is forked),
// in every format.
func TestOneRefFormsMatchPair(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, _, err := store.Init(dir + "/.ctx")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := packgen.Year(s, packgen.YearOptions{Sessions: 25, MinSteps: 20, MaxSteps: 60, Seed: 7, Import: importlog.Log}); err != nil {
		t.Fatal(err)
	}
	l, err := packlog.List(s, packlog.Options{})
	if err != nil || len(l.Problems) > 0 {
		t.Fatal(err, l.Problems)
	}
	run := func(stdin string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := cli.Run("ctx-diff", &diffCmd{}, append([]string{"--store", dir}, args...), strings.NewReader(stdin), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	pairs, snapshots, forks := 0, 0, 0
	for _, e := range l.Entries {
		b := e.Hash.String()
		a, err := ref.Predecessor(s, e.Hash)
		if err != nil {
			t.Fatal(err)
		}
		if a.IsZero() {
			continue
		}
		pairs++
		if e.Parent.IsZero() {
			snapshots++
		} else {
			forks++
		}
		for _, format := range [][]string{{"--json"}, {"--human"}, {"--html"}, {"--json", "--align", "lcs"}} {
			wantCode, want, wantErr := run("", append(format, a.String(), b)...)
			if wantCode > 1 || want == "" {
				t.Fatalf("ctx-diff %s %s %s: exit %d: %s", format, a.Short(), e.Hash.Short(), wantCode, wantErr)
			}
			for _, form := range []struct {
				stdin string
				args  []string
			}{
				{"", append(format, b)},
				{`{"hash":"` + b + `"}` + "\n", format},
			} {
				code, got, gotErr := run(form.stdin, form.args...)
				if code != wantCode || got != want || gotErr != wantErr {
					t.Errorf("ctx-diff %q with stdin %q: exit %d, %d bytes (stderr %q); ctx-diff A B: exit %d, %d bytes (stderr %q)",
						form.args, form.stdin, code, len(got), gotErr, wantCode, len(want), wantErr)
				}
			}
		}
	}
	t.Logf("%d pairs: %d snapshots after another, %d forks", pairs, snapshots, forks)
	if snapshots == 0 || forks == 0 {
		t.Fatalf("%d pairs: %d snapshots after another, %d forks", pairs, snapshots, forks)
	}
}
