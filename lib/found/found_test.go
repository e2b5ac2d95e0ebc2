//go:build unix

package found

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inside := filepath.Join(dir, "in")
	os.Mkdir(inside, 0o755)
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ok := write("in/ok", "hello")
	big := write("big", strings.Repeat("x", 11))
	outside := write("outside", "secret")

	cases := []struct {
		name, path, within string
		want               string // "" for success
	}{
		{"regular", ok, "", ""},
		{"regular within", ok, inside, ""},
		{"symlink within", link("in/link", "ok"), inside, ""},
		{"symlink out of within", link("in/escape", "../outside"), inside, "leads outside"},
		{"named pipe", fifo, "", "is a named pipe"},
		{"symlink to a named pipe", link("tofifo", fifo), "", "is a named pipe"},
		{"dev zero", "/dev/zero", "", "is a device"},
		{"symlink to dev zero", link("zero", "/dev/zero"), "", "is a device"},
		{"directory", inside, "", "is a directory"},
		{"too large", big, "", "more than the 10 accepted"},
		{"missing", filepath.Join(dir, "nothing"), "", "no such file"},
	}
	_ = outside
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.path == "/dev/zero" {
				if _, err := os.Stat(tc.path); err != nil {
					t.Skip("no /dev/zero")
				}
			}
			b, err := ReadFile(tc.path, Rule{What: "test file", Max: 10, Within: tc.within})
			if tc.want == "" {
				if err != nil || string(b) != "hello" {
					t.Fatalf("got %q, %v", b, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("read %q, want an error mentioning %q", b, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "test file") {
				t.Errorf("error %q: want the file's role and %q", err, tc.want)
			}
			var fe *Error
			if tc.name != "missing" && !errors.As(err, &fe) {
				t.Errorf("error %v is not a *found.Error", err)
			}
			if tc.name == "missing" && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("error %v is not fs.ErrNotExist", err)
			}
		})
	}
}

// TestAppend: Append creates or extends a regular file, and refuses,
// without blocking, a named pipe, a symlink (to /dev/zero or to a
// regular file), a file out of Within and a file already too large.
func TestAppend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "big"), []byte("01234567890"), 0o600)
	os.WriteFile(filepath.Join(dir, "ok"), []byte("a"), 0o600)
	os.Symlink("/dev/zero", filepath.Join(dir, "zero"))
	os.Symlink("ok", filepath.Join(dir, "link"))
	out := t.TempDir()
	os.Symlink(out, filepath.Join(dir, "out"))
	cases := []struct{ name, want string }{
		{"ok", ""},
		{"new", ""},
		{"fifo", "named pipe"},
		{"zero", "symlink"},
		{"link", "symlink"},
		{"big", "more than the 10 accepted"},
		{"out/x", "leads outside"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Append(filepath.Join(dir, tc.name), Rule{What: "test file", Max: 10, Within: dir}, 0o600)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString("b")
				f.Close()
				return
			}
			if err == nil {
				f.Close()
				t.Fatalf("opened, want an error mentioning %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want %q", err, tc.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ok")); string(b) != "ab" {
		t.Errorf("appended file holds %q, want \"ab\"", b)
	}
}

// TestUnresolved: a file read as named is read; a symlink (even to a
// good file) and a named pipe are refused, without blocking.
func TestUnresolved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	os.WriteFile(good, []byte("body"), 0o600)
	os.Symlink(good, filepath.Join(dir, "link"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Skip(err)
	}
	r := Rule{What: "entry", Max: 100, Unresolved: true}
	if b, err := ReadFile(good, r); err != nil || string(b) != "body" {
		t.Fatalf("good: %q %v", b, err)
	}
	for _, n := range []string{"link", "fifo"} {
		if _, err := ReadFile(filepath.Join(dir, n), r); err == nil {
			t.Errorf("%s: read", n)
		}
	}
	if _, err := ReadFile(good, Rule{What: "entry", Max: 100, Unresolved: true, Within: dir}); err == nil {
		t.Error("Within and Unresolved: read")
	}
}
