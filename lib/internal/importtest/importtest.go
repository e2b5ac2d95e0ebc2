// Package importtest holds what the tests of the importers share,
// wherever a format's importer lives (lib/importer, lib/agent/NAME):
// golden files and the counts a test takes of an imported log. It
// imports no importer, so that lib/importer's own tests may use it.
package importtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/execlog"
)

// Golden compares got (a newline added) with the file, or rewrites the
// file when update is set (go test -update).
func Golden(t testing.TB, file string, got []byte, update bool) {
	t.Helper()
	got = append(got, '\n')
	if update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the log differs from %s (run go test -update after checking the change):\n%s", file, got)
	}
}

// Counts are what a test counts in an imported log, to compare with the
// counts taken from the source by hand.
type Counts struct {
	Calls, Results, Errors, Turns, Users, Images, SubagentSteps int
	Usage                                                       map[string]int64
}

// CountLog counts the steps, results, errors, turns, user prompts,
// images, subagent steps and usage of an imported log.
func CountLog(out []byte) Counts {
	var c Counts
	c.Usage = map[string]int64{}
	l := gjson.ParseBytes(out)
	for _, s := range l.Get("steps").Array() {
		if s.Get("agent").String() != "" {
			c.SubagentSteps++
		}
		for _, p := range s.Get("output_parts").Array() {
			if p.Get("type").String() == "image" {
				c.Images++
			}
		}
		if s.Get("type").String() == "tool_call" {
			c.Calls++
			if s.Get("output").Exists() || s.Get("output_parts").Exists() {
				c.Results++
			}
			if s.Get("error").Exists() {
				c.Errors++
			}
			continue
		}
		c.Turns++
		s.Get("usage").ForEach(func(k, v gjson.Result) bool {
			c.Usage[k.Str] += v.Int()
			return true
		})
	}
	for _, p := range l.Get("prompts").Array() {
		if p.Get("role").String() == "user" {
			c.Users++
		}
		for _, part := range p.Get("parts").Array() {
			if part.Get("type").String() == "image" {
				c.Images++
			}
		}
	}
	return c
}

// CheckCounts compares counts with those taken from the source.
func CheckCounts(t testing.TB, got, want Counts) {
	t.Helper()
	if got.Calls != want.Calls || got.Results != want.Results || got.Errors != want.Errors || got.Turns != want.Turns ||
		got.Users != want.Users || got.Images != want.Images || got.SubagentSteps != want.SubagentSteps {
		t.Errorf("%d calls, %d results, %d errors, %d turns, %d user prompts, %d images, %d subagent steps; want %d, %d, %d, %d, %d, %d, %d",
			got.Calls, got.Results, got.Errors, got.Turns, got.Users, got.Images, got.SubagentSteps,
			want.Calls, want.Results, want.Errors, want.Turns, want.Users, want.Images, want.SubagentSteps)
	}
	if len(got.Usage) != len(want.Usage) {
		t.Errorf("usage = %v, want %v", got.Usage, want.Usage)
	}
	for k, v := range want.Usage {
		if got.Usage[k] != v {
			t.Errorf("usage %s = %d, want %d", k, got.Usage[k], v)
		}
	}
}

// Fixture reads the fixture at path, checks that detect names it format,
// imports it with imp, compares the log, indented, with the golden file
// beside it (path with .golden.json for its extension) and checks that
// ctx-pack accepts the log. It returns the log and imp's report.
func Fixture[R any](t testing.TB, path, format string, detect func(name string, data []byte) (string, error),
	imp func(data []byte) ([]byte, R, error), update bool) ([]byte, R) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := detect(path, data); f != format {
		t.Fatalf("Detect = %q, %v", f, err)
	}
	out, rep, err := imp(data)
	if err != nil {
		t.Fatal(err)
	}
	Golden(t, strings.TrimSuffix(path, filepath.Ext(path))+".golden.json", canon.Indent(out), update)
	if _, err := execlog.Parse(out, execlog.Options{}); err != nil {
		t.Fatalf("ctx-pack would reject the log:\n%v", err)
	}
	return out, rep
}
