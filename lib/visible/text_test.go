package visible

import "testing"

func TestTextRender(t *testing.T) {
	t.Parallel()
	var x Text
	x.WriteString("replay: ")
	x.Paint(Green, "exact")
	x.Printf(" tool %s\n", "evil\x1b[31m")
	x.Paint(Red, "- gone\x1b]0;title\x07")
	x.WriteString("\n")
	if got, want := x.String(), "replay: exact tool evil\x1b[31m\n- gone\x1b]0;title\x07\n"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	plain := "replay: exact tool evil\\u001b[31m\n- gone\\u001b]0;title\\u0007\n"
	if got := x.Render(false); got != plain {
		t.Errorf("Render(false) = %q, want %q", got, plain)
	}
	colour := "replay: \x1b[32mexact\x1b[m tool evil\\u001b[31m\n\x1b[31m- gone\\u001b]0;title\\u0007\x1b[m\n"
	if got := x.Render(true); got != colour {
		t.Errorf("Render(true) = %q, want %q", got, colour)
	}
	var empty Text
	empty.Paint(Bold, "")
	if got := empty.Render(true); got != "" {
		t.Errorf("empty Render = %q", got)
	}
}
