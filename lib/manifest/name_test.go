package manifest

import "testing"

func TestCheckName(t *testing.T) {
	t.Parallel()
	for name, ok := range map[string]bool{
		"a": true, "src/main.py": true, ".hidden": true, "a/.b/c": true, "..a": true, "a..": true,
		"": false, "/abs": false, "../x": false, "a/../b": false, "a/../../x": false, "a//b": false, "a/": false,
		".": false, "..": false, "./a": false, "a/.": false, `a\b`: false, "a\x00b": false,
	} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v, want ok=%v", name, err, ok)
		}
	}
}

func TestDirConflict(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		names       []string
		file, under int
		ok          bool
	}{
		{[]string{"a", "b/a", "a.d/x"}, 0, 0, false},
		{[]string{"readme.md", "readme.md/x"}, 0, 1, true},
		{[]string{"a/b/c", "x", "a"}, 2, 0, true},
		{[]string{"a/b", "a/b/c/d"}, 0, 1, true},
		{[]string{"ab", "a/b"}, 0, 0, false},
	} {
		f, u, ok := DirConflict(tc.names)
		if ok != tc.ok || ok && (f != tc.file || u != tc.under) {
			t.Errorf("DirConflict(%q) = %d, %d, %v; want %d, %d, %v", tc.names, f, u, ok, tc.file, tc.under, tc.ok)
		}
	}
}
