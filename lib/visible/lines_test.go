package visible

import (
	"slices"
	"strings"
	"testing"
)

func TestFirstLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"one\n\n  \ntwo\r\n", []string{"one", "two"}},
		{"a\nb\nc\nd\n", []string{"a", "b", "c …"}},
		{"\x1b[2Jx", []string{`\u001b[2Jx`}},
		{strings.Repeat("é", 12), []string{strings.Repeat("é", 10) + "…"}},
	} {
		if got := FirstLines(tc.text, 3, 10); !slices.Equal(got, tc.want) {
			t.Errorf("FirstLines(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
