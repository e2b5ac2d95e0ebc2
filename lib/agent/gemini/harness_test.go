package gemini

import "testing"

func TestContext(t *testing.T) {
	t.Parallel()
	ctx := "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nToday's date is Sunday, November 29, 2026 (formatted according to the user's locale).\nMy operating system is: linux\n" +
		"The project's temporary directory is: /home/u/.gemini/tmp/proj\n- **Workspace Directories:**\n  - /home/dev/proj\n  - /home/dev/lib\n- **Directory Structure:**\n\n/home/dev/proj/\n\n</session_context>"
	old := "This is the Gemini CLI. We are setting up the context for our chat.\n  Today's date is Monday.\n  I'm currently working in the directory: /home/dev/app\n  Here is the folder structure"
	for _, tc := range []struct {
		text, kind, dir string
	}{
		{ctx, "session-context", "/home/dev/proj"},
		{old, "session-context", "/home/dev/app"},
		{"Create hello.txt.", "", ""},
		{"I'm currently working in the directory: /etc", "", ""},
	} {
		if k := Context(tc.text); k != tc.kind {
			t.Errorf("Context(%.30q) = %q, want %q", tc.text, k, tc.kind)
		}
		if Harness(tc.text) != (tc.kind != "") {
			t.Errorf("Harness(%.30q) = %v", tc.text, !(tc.kind != ""))
		}
		if d := Workdir(tc.text); d != tc.dir {
			t.Errorf("Workdir(%.30q) = %q, want %q", tc.text, d, tc.dir)
		}
	}
}

func TestClean(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"<untrusted_context>\nOutput: (empty)\nExit Code: 1\nProcess Group PGID: 18857\n</untrusted_context>": "<untrusted_context>\nOutput: (empty)\nExit Code: 1\nProcess Group PGID: 0\n</untrusted_context>",
		"Output: a\nProcess Group PGID: 7": "Output: a\nProcess Group PGID: 0",
		// Only the whole line: the command's own output is left alone.
		"Output: Process Group PGID: 12 is mine\nProcess Group PGID: 3": "Output: Process Group PGID: 12 is mine\nProcess Group PGID: 0",
		"title: plan\n": "title: plan\n",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}
