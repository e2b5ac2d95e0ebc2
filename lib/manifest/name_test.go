package manifest

import "testing"

func TestCheckName(t *testing.T) {
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
