package opencode

import "testing"

func TestClean(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"...output truncated...\n\nFull output saved to: /tmp/h/.local/share/opencode/tool-output/tool_22588eee0001lsRVcMnWsr9aBf\n\n1002\n": "...output truncated...\n\nFull output saved to: tool-output/tool_0\n\n1002\n",
		// A command's own output is left alone.
		"Full output saved to: /tmp/report.txt": "Full output saved to: /tmp/report.txt",
		"Edit applied successfully.":            "Edit applied successfully.",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}
