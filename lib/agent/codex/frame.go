package codex

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/replay"
)

// What Codex records around a shell command's output (its exit code and
// wall time, as JSON or as a text header) does not depend on the files:
// Frame puts a reproduced output (apply_patch's answer, a plain read
// replayed) back into the recorded frame, so that only the output itself
// is compared.

// Frame puts output into the frame of recorded, the result Codex
// recorded for a shell call, in whichever of its forms recorded has:
//
//   - JSON {"output": …, "metadata": {"exit_code": 0, …}}: the output
//     member replaced, escaped as Codex (serde_json) escapes;
//   - text with an "Output:\n" line after a header (exit code, wall time):
//     what follows it replaced;
//   - anything else: output itself.
//
// A recorded exit code other than 0, or output Codex shortened, cannot be
// reproduced by a read and is Unsupported.
func Frame(recorded, output []byte) ([]byte, error) {
	r := gjson.ParseBytes(recorded)
	if len(recorded) > 0 && recorded[0] == '{' && gjson.ValidBytes(recorded) && r.Get("output").Type == gjson.String {
		if code := r.Get("metadata.exit_code"); code.Exists() && code.Int() != 0 {
			return nil, replay.Skipf("the recorded command exited with code %s", code.Raw)
		}
		if !utf8.Valid(output) {
			return nil, replay.Skipf("the output is not valid UTF-8, which Codex records lossily")
		}
		if bytes.Contains(recorded, []byte("Total output lines:")) {
			return nil, replay.Skipf("Codex shortened the recorded output")
		}
		o := r.Get("output")
		var b []byte
		b = append(b, recorded[:o.Index]...)
		b = canon.AppendString(b, output) // serde_json escapes exactly as canonical JSON does
		b = append(b, recorded[o.Index+len(o.Raw):]...)
		return b, nil
	}
	if head, _, ok := bytes.Cut(recorded, []byte("Output:\n")); ok && (len(head) == 0 || head[len(head)-1] == '\n') {
		if code := exitLine(head); code != "" && code != "0" {
			return nil, replay.Skipf("the recorded command exited with code %s", code)
		}
		if bytes.Contains(head, []byte("Total output lines:")) || bytes.Contains(head, []byte("Original token count:")) && bytes.Contains(recorded, []byte("tokens truncated")) {
			return nil, replay.Skipf("Codex shortened the recorded output")
		}
		return append(append([]byte(nil), recorded[:len(head)+len("Output:\n")]...), output...), nil
	}
	return output, nil
}

// Result reads a result Codex recorded for a shell call, in one of
// the forms Frame reads: the command's output, its exit code ("" when
// the result does not say), and whether Codex shortened the output.
func Result(recorded []byte) (output []byte, exitCode string, shortened bool) {
	if len(recorded) > 0 && recorded[0] == '{' && gjson.ValidBytes(recorded) {
		r := gjson.ParseBytes(recorded)
		if o := r.Get("output"); o.Type == gjson.String {
			return []byte(o.Str), r.Get("metadata.exit_code").Raw, bytes.Contains(recorded, []byte("Total output lines:"))
		}
	}
	if head, rest, ok := bytes.Cut(recorded, []byte("Output:\n")); ok && (len(head) == 0 || head[len(head)-1] == '\n') {
		short := bytes.Contains(head, []byte("Total output lines:")) || bytes.Contains(head, []byte("Original token count:")) && bytes.Contains(recorded, []byte("tokens truncated"))
		return rest, exitLine(head), short
	}
	return recorded, "", false
}

// Output returns the command output inside recorded, a result in one
// of the forms Frame reads.
func Output(recorded []byte) []byte {
	if len(recorded) > 0 && recorded[0] == '{' && gjson.ValidBytes(recorded) {
		if o := gjson.GetBytes(recorded, "output"); o.Type == gjson.String {
			return []byte(o.Str)
		}
	}
	if head, rest, ok := bytes.Cut(recorded, []byte("Output:\n")); ok && (len(head) == 0 || head[len(head)-1] == '\n') {
		return rest
	}
	return recorded
}

// exitLine finds the exit code a text header states ("Exit code: N",
// "Process exited with code N").
func exitLine(head []byte) string {
	for _, l := range strings.Split(string(head), "\n") {
		for _, p := range []string{"Exit code: ", "Process exited with code "} {
			if s, ok := strings.CutPrefix(l, p); ok {
				return strings.TrimSpace(s)
			}
		}
	}
	return ""
}
