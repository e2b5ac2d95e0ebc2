package codex

import (
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/importer"
)

// How Codex says a tool call failed. A rollout's function_call_output
// carries no success flag (Codex drops it when it writes the item; only
// rollouts before 0.2x have the {"content", "success": false} object), so
// a failure is read from what Codex wrote to the model, as a class:
//
//   - the exit code of a command, in the exec_command_end event when the
//     rollout has one (its status "failed" or "declined" without a code
//     is a failure too), else in the output: the {"output", "metadata":
//     {"exit_code"}} JSON of the shell tool, the header lines before
//     "Output:" of the freeform shell tool ("Exit code: N") and of unified
//     exec ("Process exited with code N", after "Chunk ID" and "Wall
//     time"; a process still running, "Process running with session ID",
//     has no exit code yet);
//   - a sandbox refusal: "failed in sandbox …", "sandbox error: …",
//     "sandbox denied exec error, exit code: N, stdout: …", and the debug
//     form "execution error: Sandbox(Denied { output: ExecToolCallOutput {
//     exit_code: N, …": the exit code when the text has one;
//   - what Codex answers instead of running the call (codex-rs
//     FunctionCallError::RespondToModel): "execution error: …",
//     "exec_command failed…", "write_stdin failed…", "failed to parse …
//     arguments…", "unsupported call…", "apply_patch verification
//     failed…", "approval policy is …; reject command…", a rejection
//     ("exec command rejected by user", "patch rejected by user",
//     "rejected by user"), an MCP tool's error ("err: …"; the
//     mcp_tool_call_end event, when the rollout has one, says it first:
//     mcpEnd);
//   - a code-mode script that failed ("Script failed" above "Output:").
//
// The failure's message is the text's first line, unless the exit code
// says it all; the output stays the output, byte for byte.

// codexFailurePrefixes open the text Codex answers instead of a call's
// output.
var codexFailurePrefixes = []string{
	"failed in sandbox", "sandbox error:", "sandbox denied exec error",
	"execution error:", "exec_command failed", "write_stdin failed",
	"failed to parse ", "unsupported call", "unsupported unified exec function",
	"apply_patch verification failed", "apply_patch handler received", "unified_exec handler received",
	"approval policy is ", "err: ",
	"exec command rejected by user", "patch rejected by user", "rejected by user",
}

// codexHeader lists the lines Codex writes above "Output:".
var codexHeader = []string{
	"Exit code: ", "Wall time", "Chunk ID: ", "Process exited with code ",
	"Process running with session ID", "Original token count: ",
	"Total output lines: ", "Script failed", "Script completed", "Script running",
}

// codexFailure reads what a Codex tool output says about failure: whether
// the call failed, its exit code (a JSON integer) and a message.
func codexFailure(text string) (failed bool, exitCode gjson.Result, msg string) {
	if strings.HasPrefix(text, "{") && gjson.Valid(text) {
		if c := gjson.Get(text, "metadata.exit_code"); c.Type == gjson.Number {
			return c.Raw != "0", c, ""
		}
		return false, gjson.Result{}, ""
	}
	first, _, _ := strings.Cut(text, "\n")
	for _, p := range codexFailurePrefixes {
		if strings.HasPrefix(text, p) {
			code := exitCodeIn(text)
			if code.Exists() && code.Raw == "0" {
				code = gjson.Result{} // a refusal is a failure whatever code it quotes
			}
			return true, code, strings.TrimSpace(first)
		}
	}
	// The header: every line before "Output:" is one Codex writes.
	header, _, ok := strings.Cut(text, "\nOutput:")
	if !ok {
		return false, gjson.Result{}, ""
	}
	var code gjson.Result
	script := false
	for _, line := range strings.Split(header, "\n") {
		known := false
		for _, h := range codexHeader {
			known = known || strings.HasPrefix(line, h)
		}
		if !known {
			return false, gjson.Result{}, ""
		}
		for _, p := range []string{"Exit code: ", "Process exited with code "} {
			if n, ok := strings.CutPrefix(line, p); ok && importer.IsDigits(strings.TrimPrefix(n, "-")) {
				code = gjson.Parse(n)
			}
		}
		script = script || line == "Script failed"
	}
	switch {
	case code.Exists():
		return code.Raw != "0", code, ""
	case script:
		return true, gjson.Result{}, "Script failed"
	}
	return false, gjson.Result{}, ""
}

// failureText decodes as much of lit, an output's JSON string literal,
// as codexExit reads to tell a failure: the header, up to the first
// "\nOutput:" (the first lines of what is often kilobytes), unless the
// text is a JSON object or opens as a refusal, whose exit code may be
// anywhere in it; then all of it. FuzzFailureText holds the two to the
// same verdicts.
func failureText(lit string) string {
	const sep = `\nOutput:` // as a literal writes it
	for from := 0; !strings.HasPrefix(lit, `"{`); {
		i := strings.Index(lit[from:], sep)
		if i < 0 {
			break
		}
		i += from
		// An escape, not the end of an escaped backslash: after an even
		// run of backslashes.
		j := i
		for j > 0 && lit[j-1] == '\\' {
			j--
		}
		if (i-j)%2 != 0 {
			from = i + 1
			continue
		}
		head := gjson.Parse(lit[:i+len(sep)] + `"`).Str
		if strings.HasPrefix(head, "{") || slices.ContainsFunc(codexFailurePrefixes, func(p string) bool { return strings.HasPrefix(head, p) }) {
			break
		}
		return head
	}
	return gjson.Parse(lit).Str
}

// exitCodeIn finds the exit code a sandbox refusal quotes: "exit code: N"
// or, in the debug form, "exit_code: N".
func exitCodeIn(text string) gjson.Result {
	for _, k := range []string{"exit code: ", "exit_code: "} {
		i := strings.Index(text, k)
		if i < 0 {
			continue
		}
		n := text[i+len(k):]
		end := 0
		for end < len(n) && (n[end] >= '0' && n[end] <= '9' || end == 0 && n[end] == '-') {
			end++
		}
		if end > 0 && importer.IsDigits(strings.TrimPrefix(n[:end], "-")) {
			return gjson.Parse(n[:end])
		}
	}
	return gjson.Result{}
}
