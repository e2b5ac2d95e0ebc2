package render

import (
	"testing"
)

func TestCoreutils(t *testing.T) {
	t.Parallel()
	const f = "one\ntwo\nthree\nfour"
	tests := []struct{ name, got, want string }{
		{"sed range", string(Sed([]byte(f), 2, 3)), "two\nthree\n"},
		{"sed last line keeps no newline", string(Sed([]byte(f), 3, 9)), "three\nfour"},
		{"sed one line", string(Sed([]byte(f), 1, 1)), "one\n"},
		{"sed past end", string(Sed([]byte(f), 7, 9)), ""},
		{"nl -ba", string(Nl([]byte("a\n\nb"))), "     1\ta\n     2\t\n     3\tb\n"},
		{"nl empty", string(Nl(nil)), ""},
		{"ls lines", string(Lines([]string{"a", "b"})), "a\nb\n"},
		{"ls none", string(Lines(nil)), ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestCodexFrame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, recorded, output, want string
	}{
		{"json frame", `{"output":"old\n","metadata":{"exit_code":0,"duration_seconds":0.1}}`, "new \"q\" \\ é\t\x01\n",
			`{"output":"new \"q\" \\ é\t\u0001\n","metadata":{"exit_code":0,"duration_seconds":0.1}}`},
		{"json failed", `{"output":"cat: x: No such file\n","metadata":{"exit_code":1}}`, "x", "skip: the recorded command exited with code 1"},
		{"text frame", "Exit code: 0\nWall time: 0.2 seconds\nOutput:\nold\n", "new\n", "Exit code: 0\nWall time: 0.2 seconds\nOutput:\nnew\n"},
		{"text frame failed", "Process exited with code 2\nOutput:\nboom\n", "x", "skip: the recorded command exited with code 2"},
		{"shortened", "Exit code: 0\nTotal output lines: 900\nOutput:\na\n[... omitted ...]\n", "x", "skip: Codex shortened the recorded output"},
		{"plain", "just text\n", "new\n", "new\n"},
	}
	for _, tt := range tests {
		got, err := CodexFrame([]byte(tt.recorded), []byte(tt.output))
		if s := result(got, err); s != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, s, tt.want)
		}
	}
	for _, rec := range []string{`{"output":"a\nb\n","metadata":{}}`, "Exit code: 0\nOutput:\na\nb\n", "a\nb\n"} {
		if got := string(CodexOutput([]byte(rec))); got != "a\nb\n" {
			t.Errorf("CodexOutput(%q) = %q", rec, got)
		}
	}
}
