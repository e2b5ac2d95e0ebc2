package kernelpack

import (
	"fmt"
	"slices"
	"testing"
)

// unicode16Lower are the 55 code points whose uppercase mapping JavaScript
// engines of today know (Unicode 16 and later) and Go's Unicode 15 tables
// do not: for the reference, "x" !== "x".toUpperCase() for each.
func unicode16Lower() []rune {
	rs := []rune{0x019B, 0x0264, 0x1C8A, 0xA7CD, 0xA7CF, 0xA7D3, 0xA7D5, 0xA7DB}
	for r := rune(0x10D70); r <= 0x10D85; r++ {
		rs = append(rs, r)
	}
	for r := rune(0x16EBB); r <= 0x16ED3; r++ {
		rs = append(rs, r)
	}
	return rs
}

func TestUppercaseUnicode16(t *testing.T) {
	t.Parallel()
	rs := unicode16Lower()
	if len(rs) != 55 {
		t.Fatalf("%d code points, want 55", len(rs))
	}
	for _, r := range rs {
		if !changesWhenUppercased(string(r)) {
			t.Errorf("U+%04X: %q.toUpperCase() changes it, but it is taken as uppercase", r, string(r))
		}
		if !changesWhenUppercased("SIG" + string(r)) {
			t.Errorf("SIG + U+%04X taken as uppercase", r)
		}
	}
	// Their neighbours that are uppercase already, or not letters, stay.
	for _, r := range []rune{0xA7CB, 0xA7CC, 0xA7DC, 0x10D50, 0x10D65, 0x16EA0} {
		if changesWhenUppercased(string(r)) {
			t.Errorf("U+%04X taken as changing when uppercased", r)
		}
	}
}

// TestSignalUnicode16 is RN10 on a runner.json whose signal is "ɤ": PK8
// for the reference, so for us.
func TestSignalUnicode16(t *testing.T) {
	t.Parallel()
	runner := `{"runner_schema_version":"1.0.0","runner_id":"runner_20260107_120000_k3x9q2","runner_version":"1",
		"platform":{"os":"linux","arch":"x64","node_version":"v24","npm_version":"10"},
		"sandbox":{"backend":"none","isolation_level":"none","network_blocked":true,"filesystem_readonly":false},
		"limits":{"timeout_ms":1000,"max_output_files":1,"max_total_output_bytes":1024},
		"commands":{"allowlist":[],"blocklist":[],"shell":"sh"},"write_roots":[],
		"context":{"working_dir":".","env_allowlist":[],"locale":"C","timezone":"UTC"},
		"timing":{"started_at":"2026-01-07T12:00:00Z","completed_at":"2026-01-07T12:00:01Z","duration_ms":1000},
		"exit":{"code":0,"signal":%q,"oom_killed":false,"timeout_killed":false}}`
	if got := messages(verifyRunner(mustParse(t, fmt.Sprintf(runner, "SIGKILL")))); len(got) != 0 {
		t.Fatalf("valid runner: %q", got)
	}
	got := messages(verifyRunner(mustParse(t, fmt.Sprintf(runner, "ɤ"))))
	if !slices.Equal(got, []string{"RN10: exit.signal must be uppercase"}) {
		t.Errorf(`signal "ɤ": %q, want RN10`, got)
	}
}
