package suggest

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"log", "log", 0}, {"log", "lgo", 1}, {"latest", "latets", 1},
		{"baseline", "basline", 1}, {"pack", "pakc", 1}, {"show", "shwo", 1},
		{"abc", "", 3}, {"kitten", "sitting", 3}, {"ctx", "xtc", 2}, {"día", "dia", 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	t.Parallel()
	verbs := []string{"init", "pack", "show", "diff", "replay", "verify", "fork", "log", "push", "pull", "gc"}
	for _, tc := range []struct {
		word string
		want []string
	}{
		{"lgo", []string{"log"}},
		{"shwo", []string{"show"}},
		{"pul", []string{"pull"}},
		{"psuh", []string{"push"}},
		{"replya", []string{"replay"}},
		{"frobnicate", nil},
		{"xy", nil},
		{"log", nil}, // itself is no suggestion
		{"puxh", []string{"push"}},
		{"pu11", []string{"pull", "push"}}, // equally near: both
	} {
		if got := Nearest(tc.word, verbs); !slices.Equal(got, tc.want) {
			t.Errorf("Nearest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

func TestJoin(t *testing.T) {
	t.Parallel()
	if got := Join([]string{"log"}, "ctx "); got != "'ctx log'" {
		t.Errorf("got %s", got)
	}
	if got := Join([]string{"a", "b", "c"}, ""); got != "'a', 'b' or 'c'" {
		t.Errorf("got %s", got)
	}
}
