package cli

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

func TestPluralSize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		got, want string
	}{
		{Plural(0, "object"), "0 objects"},
		{Plural(1, "object"), "1 object"},
		{Plural(2, "layer"), "2 layers"},
		{Size(1), "1 byte"},
		{Size(59), "59 bytes"},
		{Size(1023), "1023 bytes"},
		{Size(1536), "1.5 KiB"},
		{Size(3 << 20), "3.0 MiB"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestWarnElidesLongQuotes(t *testing.T) {
	t.Parallel()
	long := "echo " + strings.Repeat("a", 500) + "\x1b[2J" + strings.Repeat("é", 300) + " end"
	var errb bytes.Buffer
	env := &Env{Name: "ctx-x", Stderr: &errb}
	env.Warnf("step 3: command %q has no result; short %q kept", long, "ok")
	got := errb.String()
	if len(got) > 400 {
		t.Errorf("warning is %d bytes long:\n%s", len(got), got)
	}
	start := strings.Index(got, `"echo aaa`)
	end := strings.Index(got[start+1:], `é end"`)
	if start < 0 || end < 0 {
		t.Fatalf("warning lost the value's start or end:\n%s", got)
	}
	q := got[start : start+1+end+len(`é end"`)]
	v, err := strconv.Unquote(q)
	if err != nil || !strings.Contains(v, "…") || len([]rune(v)) != quotedHead+1+quotedTail {
		t.Errorf("elided value %s: %q, %v", q, v, err)
	}
	if !strings.Contains(got, `short "ok" kept`) {
		t.Errorf("a short value was changed:\n%s", got)
	}
	// A short message is left alone.
	if s := `a "` + strings.Repeat("b", 100) + `"`; elideQuoted(s) != s {
		t.Errorf("elideQuoted changed %q", s)
	}
}
