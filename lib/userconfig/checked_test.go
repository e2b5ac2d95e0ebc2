package userconfig

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
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

func TestDigestCache(t *testing.T) {
	c := DigestCache{Dir: t.TempDir(), Magic: "test-cache 1", What: "test entry"}
	d, other := digest.Of([]byte("a")), digest.Of([]byte("b"))
	if _, ok := c.Load(d); ok {
		t.Fatal("an entry before any was saved")
	}
	body := []byte("derived from a\n")
	if err := c.Save(d, body); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Load(d); !ok || !bytes.Equal(got, body) {
		t.Fatalf("Load = %q, %v; want %q", got, ok, body)
	}
	if h := d.Hex(); c.Path(d) != filepath.Join(c.Dir, h[:2], h[2:]) {
		t.Errorf("Path = %s", c.Path(d))
	}
	whole, err := os.ReadFile(c.Path(d))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"another digest's entry": whole,
		"cut short":              whole[:len(whole)-1],
		"a byte changed":         append(bytes.Clone(whole[:len(whole)-2]), 'X', '\n'),
		"another magic":          bytes.Replace(whole, []byte("test-cache 1"), []byte("test-cache 2"), 1),
		"no header":              body,
	} {
		at := d
		if name == "another digest's entry" {
			at = other
		}
		if err := os.MkdirAll(filepath.Dir(c.Path(at)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(c.Path(at), b, 0o600); err != nil {
			t.Fatal(err)
		}
		if got, ok := c.Load(at); ok {
			t.Errorf("%s: Load = %q, want none", name, got)
		}
	}
}
