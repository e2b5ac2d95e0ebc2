package importer

import (
	"testing"
)

// Paths are compared in the working directory's own syntax and made
// relative with "/" between their names.
func TestPathUnder(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p, dir, want string
		ok           bool
	}{
		{"/home/dev/proj/a/b.go", "/home/dev/proj", "a/b.go", true},
		{"/home/dev/proj", "/home/dev/proj/", ".", true},
		{"/home/dev/proj2/a.go", "/home/dev/proj", "", false},
		{"/home/dev/proj/a\\b.go", "/home/dev/proj", "a\\b.go", true}, // a POSIX name may hold "\\"
		{`C:\Users\x\proj\scripts\x.py`, `C:\Users\x\proj`, "scripts/x.py", true},
		{`c:\Users\x\proj\scripts\x.py`, `C:\Users\x\proj`, "scripts/x.py", true},
		{`C:/Users/x/proj/scripts/x.py`, `c:\Users\x\proj\`, "scripts/x.py", true},
		{`C:\Users\x\proj`, `C:\Users\x\proj`, ".", true},
		{`C:\Users\x\project\a.py`, `C:\Users\x\proj`, "", false},
		{`D:\Users\x\proj\a.py`, `C:\Users\x\proj`, "", false},
		{`C:\Users\X\proj\a.py`, `C:\Users\x\proj`, "", false}, // only the drive letter's case is folded
		{`\\server\share\proj\a.py`, `\\server\share\proj`, "a.py", true},
	} {
		got, ok := pathUnder(tt.p, tt.dir)
		if got != tt.want || ok != tt.ok {
			t.Errorf("pathUnder(%q, %q) = %q, %v; want %q, %v", tt.p, tt.dir, got, ok, tt.want, tt.ok)
		}
	}
}
