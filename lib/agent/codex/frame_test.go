package codex

import (
	"testing"
	"unicode/utf8"

	"github.com/ctx-tools/ctx/lib/replay/replaytest"
)

func TestFrame(t *testing.T) {
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
		got, err := Frame([]byte(tt.recorded), []byte(tt.output))
		if s := replaytest.Result(got, err); s != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, s, tt.want)
		}
	}
	for _, rec := range []string{`{"output":"a\nb\n","metadata":{}}`, "Exit code: 0\nOutput:\na\nb\n", "a\nb\n"} {
		if got := string(Output([]byte(rec))); got != "a\nb\n" {
			t.Errorf("Output(%q) = %q", rec, got)
		}
	}
}

// FuzzFrame puts arbitrary output into arbitrary recorded results:
// no panic, and Output gives back the output that was put in a frame.
func FuzzFrame(f *testing.F) {
	f.Add(`{"output":"x","metadata":{"exit_code":0}}`, "new\n")
	f.Add("Exit code: 0\nWall time: 1 seconds\nOutput:\nold", "new")
	f.Add("plain", "text")
	f.Fuzz(func(t *testing.T, recorded, output string) {
		out, err := Frame([]byte(recorded), []byte(output))
		if err != nil || !utf8.ValidString(output) {
			return
		}
		if got := string(Output(out)); got != output {
			t.Fatalf("Output(Frame(%q, %q)) = %q", recorded, output, got)
		}
	})
}
