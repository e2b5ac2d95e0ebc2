package claudecode

import "testing"

func TestClean(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"1\ta\n\n<system-reminder>\nmalware\n</system-reminder>\n", "1\ta"},
		{"  It sets name = demo.\nagentId: a024802137d01a5f8 (use SendMessage with to: 'a024802137d01a5f8', summary: '<5-10 word recap>' to continue this agent)\n<usage>subagent_tokens: 158\ntool_uses: 1\nduration_ms: 315</usage>",
			"  It sets name = demo.\nagentId: 0 (use SendMessage with to: '0', summary: '<5-10 word recap>' to continue this agent)\n<usage>subagent_tokens: 158\ntool_uses: 1\nduration_ms: 0</usage>"},
		{"duration_ms: 315", "duration_ms: 315"}, // no hand-back: left as it is
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestExitCode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		code int
		ok   bool
	}{
		{"Exit code 1\ncat: missing.txt: No such file or directory", 1, true},
		{"Exit code 127", 127, true},
		{"Exit code -1\nx", -1, true},
		{"Exit code 01\nx", 0, false},
		{"Exit code one", 0, false},
		{"cat: Exit code 1", 0, false},
	} {
		if code, ok := ExitCode(c.in); code != c.code || ok != c.ok {
			t.Errorf("ExitCode(%q) = %d, %v, want %d, %v", c.in, code, ok, c.code, c.ok)
		}
	}
}
