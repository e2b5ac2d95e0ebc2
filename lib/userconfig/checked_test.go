package userconfig

import (
	"bytes"
	"testing"
)

func TestChecked(t *testing.T) {
	t.Parallel()
	body := []byte("some cached\nbytes\x00")
	file := append(CheckedHeader("ctx-test 1 abc", body), body...)
	if got, ok := CheckedBody("ctx-test 1 abc", file); !ok || !bytes.Equal(got, body) {
		t.Fatalf("CheckedBody = %q, %v", got, ok)
	}
	if got, ok := CheckedBody("x", CheckedHeader("x", nil)); !ok || len(got) != 0 {
		t.Fatalf("empty body: %q, %v", got, ok)
	}
	flipped := bytes.Clone(file)
	flipped[len(flipped)-1] ^= 1
	for name, b := range map[string][]byte{
		"another label":  file,
		"a byte changed": flipped,
		"cut short":      file[:len(file)-1],
		"header cut":     file[:10],
		"empty":          nil,
		"longer":         append(bytes.Clone(file), 'x'),
	} {
		label := "ctx-test 1 abc"
		if name == "another label" {
			label = "ctx-test 1 abd"
		}
		if got, ok := CheckedBody(label, b); ok {
			t.Errorf("%s: accepted, body %q", name, got)
		}
	}
	if _, ok := CheckedBody("ctx-test", append([]byte("ctx-test 1 "), file[len("ctx-test 1 "):]...)); ok {
		t.Error("a label that is a prefix of the file's label accepted")
	}
}
