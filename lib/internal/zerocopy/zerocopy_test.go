package zerocopy

import (
	"strings"
	"testing"
)

// String and Bytes share memory with what they are given: a change to the
// bytes shows in the string, and Bytes of that string is the same memory.
func TestStringBytesShare(t *testing.T) {
	b := []byte("hello, world")
	s := String(b)
	if s != "hello, world" {
		t.Fatalf("String = %q", s)
	}
	b[0] = 'j'
	if s != "jello, world" {
		t.Errorf("String copied its bytes: %q after a change to them", s)
	}
	back := Bytes(s)
	if len(back) != len(b) || &back[0] != &b[0] {
		t.Errorf("Bytes(String(b)) is not b's memory")
	}
	if String(nil) != "" || len(Bytes("")) != 0 {
		t.Errorf("empty views are not empty")
	}
}

func TestOffset(t *testing.T) {
	b := []byte("0123456789")
	s := String(b)
	for _, tc := range []struct {
		name string
		s    string
		off  int
		ok   bool
	}{
		{"whole", s, 0, true},
		{"start", s[:3], 0, true},
		{"middle", s[4:7], 4, true},
		{"end", s[7:], 7, true},
		{"last byte", s[9:], 9, true},
		{"empty", s[4:4], 0, false},
		{"equal text elsewhere", strings.Clone(s[4:7]), 0, false},
		{"longer than b", s + "x", 0, false},
	} {
		off, ok := Offset(tc.s, b)
		if off != tc.off || ok != tc.ok {
			t.Errorf("%s: Offset = %d, %v; want %d, %v", tc.name, off, ok, tc.off, tc.ok)
		}
	}
	// A string of b's memory that runs past len(b), into its capacity, is
	// not inside b.
	big := make([]byte, 10, 20)
	copy(big, "abcdefghij")
	tail := String(big[:20])[8:12]
	if off, ok := Offset(tail, big); ok {
		t.Errorf("a string reaching past len(b) is at %d", off)
	}
	// Nor is one that starts before it.
	if off, ok := Offset(String(big[:20])[0:4], big[2:]); ok {
		t.Errorf("a string starting before b is at %d", off)
	}
	if _, ok := Offset("x", nil); ok {
		t.Errorf("a string is inside an empty b")
	}
}
