package edit

import (
	"errors"
	"reflect"
	"testing"
)

func files(m map[string]string) Reader {
	return func(p string) (string, error) {
		s, ok := m[p]
		if !ok {
			return "", ErrNotExist
		}
		return s, nil
	}
}

func TestApply(t *testing.T) {
	t.Parallel()
	fs := map[string]string{"a.txt": "one\ntwo\nthree\n", "d/b.go": "package b\n", "dup.txt": "x x\n"}
	tests := []struct {
		name, tool, params string
		want               []Change
		conflict           string
	}{
		{"write new", "Write", `{"file_path":"n.txt","content":"hi\n"}`,
			[]Change{{Path: "n.txt", Content: "hi\n"}}, ""},
		{"write over", "write_file", `{"path":"a.txt","content":""}`,
			[]Change{{Path: "a.txt", Content: "", Before: fs["a.txt"], Existed: true}}, ""},
		{"edit", "Edit", `{"file_path":"a.txt","old_string":"two","new_string":"2"}`,
			[]Change{{Path: "a.txt", Content: "one\n2\nthree\n", Before: fs["a.txt"], Existed: true}}, ""},
		{"edit removes the line", "edit_file", `{"path":"a.txt","old_string":"two","new_string":""}`,
			[]Change{{Path: "a.txt", Content: "one\nthree\n", Before: fs["a.txt"], Existed: true}}, ""},
		{"edit all", "Edit", `{"file_path":"dup.txt","old_string":"x","new_string":"y","replace_all":true}`,
			[]Change{{Path: "dup.txt", Content: "y y\n", Before: "x x\n", Existed: true}}, ""},
		{"edit ambiguous", "Edit", `{"file_path":"dup.txt","old_string":"x","new_string":"y"}`,
			nil, "dup.txt: old_string occurs 2 times, and replace_all is not set"},
		{"edit missing", "Edit", `{"file_path":"a.txt","old_string":"four","new_string":"4"}`,
			nil, "a.txt: old_string is not in the file"},
		{"edit creates", "Edit", `{"file_path":"c.txt","old_string":"","new_string":"new\n"}`,
			[]Change{{Path: "c.txt", Content: "new\n"}}, ""},
		{"edit of no file", "Edit", `{"file_path":"c.txt","old_string":"a","new_string":"b"}`,
			nil, "c.txt: the file does not exist"},
		{"multiedit in order", "MultiEdit", `{"file_path":"a.txt","edits":[{"old_string":"one","new_string":"two"},{"old_string":"two\ntwo","new_string":"2"}]}`,
			[]Change{{Path: "a.txt", Content: "2\nthree\n", Before: fs["a.txt"], Existed: true}}, ""},
		{"patch", "apply_patch", `"*** Begin Patch\n*** Add File: d/new.txt\n+n\n*** Update File: a.txt\n@@\n-two\n+TWO\n*** Delete File: d/b.go\n*** End Patch"`,
			[]Change{{Path: "d/new.txt", Content: "n\n"}, {Path: "a.txt", Content: "one\nTWO\nthree\n", Before: fs["a.txt"], Existed: true}, {Path: "d/b.go", Before: "package b\n", Existed: true, Deleted: true}}, ""},
		{"patch move in a workdir", "shell", `{"command":["bash","-lc","cd d && apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: b.go\n*** Move to: c.go\n@@\n-package b\n+package c\n*** End Patch\nEOF"],"workdir":"."}`,
			[]Change{{Path: "d/b.go", Before: "package b\n", Existed: true, Deleted: true}, {Path: "d/c.go", Content: "package c\n", From: "d/b.go"}}, ""},
		{"patch does not apply", "apply_patch", `{"input":"*** Begin Patch\n*** Update File: a.txt\n@@\n-four\n+4\n*** End Patch"}`,
			nil, "a.txt: chunk 0: the lines it replaces are not in the file"},
		{"patch deletes no file", "apply_patch", `"*** Begin Patch\n*** Delete File: gone\n*** End Patch"`,
			nil, "gone: the file to delete does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := Parse(tt.tool, []byte(tt.params))
			if err != nil || e == nil {
				t.Fatalf("Parse: %v, %v", e, err)
			}
			got, err := e.Apply(files(fs))
			var c *Conflict
			switch {
			case tt.conflict != "":
				if !errors.As(err, &c) || c.Error() != tt.conflict {
					t.Fatalf("Apply: %v, want conflict %q", err, tt.conflict)
				}
			case err != nil:
				t.Fatalf("Apply: %v", err)
			case !reflect.DeepEqual(got, tt.want):
				t.Errorf("Apply:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ tool, params string }{
		{"shell", `{"command":["cat","a.txt"]}`},
		{"Read", `{"file_path":"a"}`},
		{"exec_command", `{"cmd":"ls"}`},
	} {
		if e, err := Parse(tt.tool, []byte(tt.params)); e != nil || err != nil {
			t.Errorf("Parse(%s, %s) = %+v, %v; want no edit", tt.tool, tt.params, e, err)
		}
	}
	for _, tt := range []struct{ tool, params, want string }{
		{"Write", `{"file_path":"a"}`, "Write: no content parameter"},
		{"Edit", `{"file_path":"a","old_string":1,"new_string":""}`, "Edit: parameter old_string: want a string"},
		{"MultiEdit", `{"file_path":"a","edits":{}}`, "MultiEdit: parameter edits: want an array"},
		{"Edit", `{"file_path":"a","old_string":"","new_string":"","replace_all":"yes"}`, "Edit: parameter replace_all: want a boolean"},
		{"apply_patch", `"no patch"`, "apply_patch: not a patch between *** Begin Patch and *** End Patch"},
	} {
		if _, err := Parse(tt.tool, []byte(tt.params)); err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%s, %s) error = %v, want %q", tt.tool, tt.params, err, tt.want)
		}
	}
	e, err := Parse("NotebookEdit", []byte(`{"notebook_path":"n.ipynb","new_source":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Apply(files(nil)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("NotebookEdit applied: %v", err)
	}
}

func TestReplace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content string
		rs            []Replacement
		want          string // "error: …" for an error
	}{
		{"first occurrence", "a b", []Replacement{{"a", "b", false}}, "b b"},
		{"replace all", "a a a", []Replacement{{"a", "b", true}}, "b b b"},
		{"in order", "x = 1\n", []Replacement{{"x", "y", false}, {"y = 1", "y = 2", false}}, "y = 2\n"},
		{"missing", "abc", []Replacement{{"z", "y", false}}, "error: old_string is not in the file"},
		{"missing in a later edit", "abc", []Replacement{{"a", "b", false}, {"z", "y", false}}, "error: edit 1: old_string is not in the file"},
		{"empty old on empty file", "", []Replacement{{"", "new\n", false}}, "new\n"},
		{"empty old on a file", "abc", []Replacement{{"", "new", false}}, "error: old_string is empty, but the file is not"},
		{"line removed whole", "a\nb\nc\n", []Replacement{{"b", "", false}}, "a\nc\n"},
		{"last line without a break", "a\nb", []Replacement{{"b", "", false}}, "a\n"},
	}
	for _, tt := range tests {
		got, err := Replace(tt.content, tt.rs)
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
