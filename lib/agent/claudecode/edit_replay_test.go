package claudecode

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/replay"
	"github.com/ctx-tools/ctx/lib/replay/replaytest"
)

// The session's edits are replayed in step order: later steps see the
// files as the session left them, and each edit's answer is verified.
// An edit that does not apply diverges, and what it left unknown skips
// the steps that read it.
func TestEditsReplayed(t *testing.T) {
	t.Parallel()
	s, m := replaytest.Pack(t, map[string]string{"src/a.txt": "aaa\n", "b.txt": "bbb\n"}, []replaytest.Step{
		{Tool: "read_file", Params: `{"path":"src/a.txt"}`, Out: "aaa\n", Det: true},
		{Tool: "Edit", Params: `{"file_path":"src/a.txt","old_string":"aaa","new_string":"xxx"}`, Out: "The file src/a.txt has been updated successfully."},
		{Tool: "Write", Params: `{"file_path":"src/new.txt","content":"n\n"}`, Out: "File created successfully at: src/new.txt"},
		{Tool: "read_file", Params: `{"path":"src/a.txt"}`, Out: "xxx\n", Det: true},
		{Tool: "read_file", Params: `{"path":"src/new.txt"}`, Out: "n\n", Det: true},
		{Tool: "grep", Params: `{"pattern":"x","path":"src"}`, Out: "src/a.txt:1:xxx\n", Det: true},
		// An edit whose old_string is not there diverges; the file is
		// then unknown, and a read of it that differs is skipped.
		{Tool: "Edit", Params: `{"file_path":"b.txt","old_string":"zzz","new_string":"y"}`, Out: "The file b.txt has been updated successfully."},
		{Tool: "read_file", Params: `{"path":"b.txt"}`, Out: "y\n", Det: true},
		// A recorded failed edit stays skipped, and changes nothing.
		{Tool: "Edit", Params: `{"file_path":"src/a.txt","old_string":"xxx","new_string":"q"}`, Out: "<tool_use_error>", Err: &manifest.StepError{}},
		{Tool: "read_file", Params: `{"path":"src/a.txt"}`, Out: "xxx\n", Det: true},
		// Outside the working directory: skipped.
		{Tool: "Write", Params: `{"file_path":"/etc/passwd","content":"x"}`, Out: "File created successfully at: /etc/passwd"},
	}, here)
	rep := replaytest.Replay(t, s, m, replay.Options{Edits: EditAnswerers()})
	want := []replay.Status{replay.Matched, replay.Matched, replay.Matched, replay.Matched, replay.Matched, replay.Matched, replay.Diverged, replay.Skipped, replay.Skipped, replay.Matched, replay.Skipped}
	for i, r := range rep.Steps {
		if r.Status != want[i] {
			t.Errorf("step %d: %s (%s), want %s", i, r.Status, r.Reason, want[i])
		}
	}
	for i, want := range map[int]string{
		6:  "Edit: b.txt: old_string is not in the file: the workspace is not what the session had",
		7:  "b.txt is not known: step 6's edit of it did not apply",
		10: `Write: path "/etc/passwd" is absolute, outside the recorded working directory; only files inside the working directory are replayed`,
	} {
		if got := rep.Steps[i].Reason; got != want {
			t.Errorf("step %d reason = %q, want %q", i, got, want)
		}
	}
	if got := rep.Steps[2].Changes; len(got) != 1 || got[0].Name != "src/new.txt" || got[0].Change != replay.Created || got[0].After != digest.Of([]byte("n\n")).String() {
		t.Errorf("step 2 changes = %+v", got)
	}
	if rep.Fidelity != replay.Degraded {
		t.Errorf("fidelity = %s, want degraded", rep.Fidelity)
	}
}

// A MultiEdit's answer is rendered as Claude Code 1.0 gave it and
// compared: the same answer matches, one that names other strings
// diverges (the edits are applied all the same), and one in another form
// is skipped.
func TestMultiEditAnswer(t *testing.T) {
	t.Parallel()
	s, m := replaytest.Pack(t, map[string]string{"a.txt": "one two\n"}, []replaytest.Step{
		{Tool: "MultiEdit", Params: `{"file_path":"a.txt","edits":[{"old_string":"one","new_string":"1"},{"old_string":"two","new_string":"2","replace_all":true}]}`,
			Out: "Applied 2 edits to a.txt:\n1. Replaced \"one\" with \"1\"\n2. Replaced \"two\" with \"2\""},
		{Tool: "read_file", Params: `{"path":"a.txt"}`, Out: "1 2\n", Det: true},
		{Tool: "MultiEdit", Params: `{"file_path":"a.txt","edits":[{"old_string":"1","new_string":"3"}]}`,
			Out: "Applied 1 edit to a.txt:\n1. Replaced \"x\" with \"3\""},
		{Tool: "MultiEdit", Params: `{"file_path":"a.txt","edits":[{"old_string":"3","new_string":"4"}]}`,
			Out: "The file a.txt has been updated successfully."},
		{Tool: "read_file", Params: `{"path":"a.txt"}`, Out: "4 2\n", Det: true},
	}, here)
	rep := replaytest.Replay(t, s, m, replay.Options{Edits: EditAnswerers()})
	for i, want := range []replay.Status{replay.Matched, replay.Matched, replay.Diverged, replay.Skipped, replay.Matched} {
		if r := rep.Steps[i]; r.Status != want {
			t.Errorf("step %d: %s (%s), want %s", i, r.Status, r.Reason, want)
		}
	}
	if got, want := rep.Steps[3].Reason, "the recorded answer is in none of the forms of Claude Code's MultiEdit that are rendered"; got != want {
		t.Errorf("step 3 reason = %q, want %q", got, want)
	}
	if got := rep.Steps[0].Changes; len(got) != 1 || got[0].Name != "a.txt" || got[0].Change != replay.Updated || got[0].After != digest.Of([]byte("1 2\n")).String() {
		t.Errorf("step 0 changes = %+v", got)
	}
}

// Claude Code 2.1.32x ends its answers to Write and Edit with a note on
// the file state: they are rendered with it, as the older forms are
// without it, and both match.
func TestEditAnswersWithFileStateNote(t *testing.T) {
	t.Parallel()
	const note = " (file state is current in your context — no need to Read it back)"
	s, m := replaytest.Pack(t, map[string]string{"a.txt": "aaa\n"}, []replaytest.Step{
		{Tool: "Write", Params: `{"file_path":"new.txt","content":"n\n"}`, Out: "File created successfully at: new.txt" + note},
		{Tool: "Edit", Params: `{"file_path":"a.txt","old_string":"aaa","new_string":"xxx"}`, Out: "The file a.txt has been updated successfully." + note},
		{Tool: "Write", Params: `{"file_path":"a.txt","content":"yyy\n"}`, Out: "The file a.txt has been updated successfully." + note},
		{Tool: "Edit", Params: `{"file_path":"a.txt","old_string":"y","new_string":"z","replace_all":true}`, Out: "The file a.txt has been updated. All occurrences of 'y' were successfully replaced with 'z'." + note},
		{Tool: "Write", Params: `{"file_path":"old.txt","content":"o\n"}`, Out: "File created successfully at: old.txt"},
		{Tool: "read_file", Params: `{"path":"a.txt"}`, Out: "zzz\n", Det: true},
	}, here)
	rep := replaytest.Replay(t, s, m, replay.Options{Edits: EditAnswerers()})
	for i, r := range rep.Steps {
		if r.Status != replay.Matched {
			t.Errorf("step %d (%s): %s %s", i, r.Tool, r.Status, r.Reason)
		}
	}
}

// A session recorded on Windows names its files under a working
// directory such as C:\Users\dev\proj, with either separator as the
// model wrote the path: its edits match when they apply.
func TestEditsRecordedOnWindows(t *testing.T) {
	t.Parallel()
	meta := `{"session":{"cwd":"C:\\Users\\dev\\proj"}}`
	s, m := replaytest.Pack(t, map[string]string{"scripts/build.py": "print('build')\r\n"}, []replaytest.Step{
		{Tool: "Edit", Params: `{"file_path":"scripts/build.py","old_string":"print('build')","new_string":"print('built')"}`,
			Out: `The file C:\Users\dev\proj\scripts\build.py has been updated successfully.`},
		{Tool: "Write", Params: `{"file_path":"docs/flags.md","content":"--verbose\n"}`,
			Out: "File created successfully at: C:/Users/dev/proj/docs/flags.md"},
		{Tool: "Edit", Params: `{"file_path":"docs/flags.md","old_string":"--verbose","new_string":"-v"}`,
			Out: `The file C:\Users\dev\proj\docs\flags.md has been updated successfully.`},
	}, here)
	m.Metadata = jsontext.Value(meta)
	if _, _, err := manifest.Commit(s, m); err != nil {
		t.Fatal(err)
	}
	rep := replaytest.Replay(t, s, m, replay.Options{Edits: EditAnswerers()})
	for i, r := range rep.Steps {
		if r.Status != replay.Matched {
			t.Errorf("step %d: %s (%s)", i, r.Status, r.Reason)
		}
	}
}
