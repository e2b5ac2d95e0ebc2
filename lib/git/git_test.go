package git

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// linesOf keeps the line numbers of adds.
func linesOf(adds map[string]*Adds) map[string][]int {
	out := map[string][]int{}
	for f, a := range adds {
		out[f] = a.Lines
	}
	return out
}

func TestAddedLines(t *testing.T) {
	t.Parallel()
	diff := `diff --git a/a.txt b/a.txt
index 1111111..2222222 100644
--- a/a.txt
+++ b/a.txt
@@ -1,0 +2,2 @@ ctx
+two
+three
@@ -5 +7 @@
-old
+new
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-x
diff --git "a/sp\303\251cial.txt" "b/sp\303\251cial.txt"
new file mode 100644
--- /dev/null
+++ "b/sp\303\251cial.txt"
@@ -0,0 +1 @@
++plus
`
	// Names as git writes them: with a space (and a TAB after), quoted
	// with a TAB and a byte that is not UTF-8; an added line that looks
	// like a file header; a line without a newline at the end.
	diff += "diff --git a/my notes.txt b/my notes.txt\n" +
		"new file mode 100644\n--- /dev/null\t\n+++ b/my notes.txt\t\n@@ -0,0 +1,3 @@\n" +
		"+one\n+++ b/a.txt\n+@@ -1 +1 @@\n" +
		"diff --git \"a/t\\tx\\377.txt\" \"b/t\\tx\\377.txt\"\n--- \"a/t\\tx\\377.txt\"\n+++ \"b/t\\tx\\377.txt\"\n" +
		"@@ -1 +1,2 @@\n-old\n\\ No newline at end of file\n+new\n+-- a/x\n\\ No newline at end of file\n"
	got := linesOf(addedLines([]byte(diff)))
	if want := []int{1, 2, 3}; !slices.Equal(got["my notes.txt"], want) {
		t.Errorf("my notes.txt: %v, want %v (all: %v)", got["my notes.txt"], want, got)
	}
	if want := []int{1, 2}; !slices.Equal(got["t\tx\xff.txt"], want) {
		t.Errorf("t\\tx\\377.txt: %v, want %v (all: %v)", got["t\tx\xff.txt"], want, got)
	}
	delete(got, "my notes.txt")
	delete(got, "t\tx\xff.txt")
	if want := []int{2, 3, 7}; !slices.Equal(got["a.txt"], want) {
		t.Errorf("a.txt: %v, want %v", got["a.txt"], want)
	}
	if want := []int{1}; !slices.Equal(got["spécial.txt"], want) {
		t.Errorf("spécial.txt: %v, want %v (all: %v)", got["spécial.txt"], want, got)
	}
	if _, ok := got["gone.txt"]; ok || len(got) != 2 {
		t.Errorf("files: %v", got)
	}
}

func FuzzAddedLines(f *testing.F) {
	f.Add([]byte("--- a/x\n+++ b/x\n@@ -0,0 +1,2 @@\n+a\n+b\n"))
	f.Add([]byte("+++ b/\"q\\\"\"\n@@ -1 +1 @@\n-x\n+y\n"))
	f.Add([]byte("@@ garbage\n+x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for file, lines := range linesOf(addedLines(b)) {
			if file == "" {
				t.Fatal("a line added to no file")
			}
			for i := 1; i < len(lines); i++ {
				if lines[i] <= lines[i-1] && lines[i] != 0 {
					// Hunks come in order in git's output; a fuzzed
					// diff may not, which is fine as long as nothing
					// panics.
					break
				}
			}
		}
	})
}

// FuzzDiffRoundTrip writes a diff as git does (diffArgs: no context,
// names quoted and followed by a TAB as git quotes them, removed lines
// before added ones in a hunk) of one file with any name and any lines,
// and another after it, and reads back exactly the lines added to each.
func FuzzDiffRoundTrip(f *testing.F) {
	f.Add("a.txt", "x\n-y\nz", uint16(1), false)
	f.Add("my notes.txt", "++ b/other\n@@ -1 +1 @@\ndiff --git a/x b/x", uint16(3), true)
	f.Add("t\tb \"q\"\\\xff.txt", "-- a/x\n-+++ b/y\n\\ x", uint16(10), false)
	f.Fuzz(func(t *testing.T, name, body string, start uint16, noEOL bool) {
		if name == "" || name == "z" || strings.ContainsRune(name, 0) {
			return
		}
		var removed, added []string
		for _, l := range strings.Split(body, "\n") {
			if r, ok := strings.CutPrefix(l, "-"); ok {
				removed = append(removed, r)
			} else {
				added = append(added, l)
			}
		}
		c := int(start)
		if len(added) > 0 && c == 0 {
			c = 1
		}
		var b strings.Builder
		fmt.Fprintf(&b, "diff --git %s %s\nindex 1111111..2222222 100644\n", quoteC("a/"+name), quoteC("b/"+name))
		fmt.Fprintf(&b, "--- %s\n+++ %s\n", diffHeaderName("a/"+name), diffHeaderName("b/"+name))
		fmt.Fprintf(&b, "@@ -1,%d +%d,%d @@ func f()\n", len(removed), c, len(added))
		for _, l := range removed {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range added {
			b.WriteString("+" + l + "\n")
		}
		if noEOL {
			b.WriteString("\\ No newline at end of file\n")
		}
		b.WriteString("diff --git a/z b/z\n--- a/z\n+++ b/z\n@@ -0,0 +1 @@\n+last\n")
		adds := addedLines([]byte(b.String()))
		if a := adds[name]; a != nil && !slices.Equal(a.Text, added) {
			t.Fatalf("%q: text %q, want %q", name, a.Text, added)
		}
		got := linesOf(adds)
		var want []int
		for i := range added {
			want = append(want, c+i)
		}
		if !slices.Equal(got[name], want) {
			t.Fatalf("%q: %v, want %v\n%s", name, got[name], want, b.String())
		}
		if !slices.Equal(got["z"], []int{1}) {
			t.Fatalf("z: %v, want [1]\n%s", got["z"], b.String())
		}
		if len(got) > 2 {
			t.Fatalf("files %v\n%s", got, b.String())
		}
	})
}

// quoteC quotes a path as git's quote_c_style does with core.quotepath
// off: only when it holds a control character, a quote or a backslash.
func quoteC(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == '"' || r == '\\' || r == 0x7f }) {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, "\\%03o", c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// diffHeaderName is a name on a "--- " or "+++ " line: quoted, then a
// TAB after it when it holds a space.
func diffHeaderName(s string) string {
	q := quoteC(s)
	if strings.Contains(q, " ") {
		q += "\t"
	}
	return q
}

// TestRepo drives a real repository: root, paths, a commit's added lines,
// the index, trailers and renames.
func TestRepo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q", "-b", "main")
	if _, err := Open(filepath.Join(dir, "nowhere")); err == nil {
		t.Error("Open of a missing directory succeeded")
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Head() != "" {
		t.Error("Head before the first commit")
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	git("add", "a.txt")
	adds, err := r.StagedAdded()
	staged := linesOf(adds)
	if err != nil || !slices.Equal(staged["a.txt"], []int{1, 2}) {
		t.Errorf("StagedAdded before the first commit = %v, %v", staged, err)
	}
	git("commit", "-q", "-m", "first\n\nCtx-Pack: ctx://aa\nCtx-Pack: ctx://bb")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\nnew\ntwo\n"), 0o644)
	git("commit", "-q", "-am", "second")
	head := r.Head()
	adds, err = r.Added(head)
	added := linesOf(adds)
	if err != nil || !slices.Equal(added["a.txt"], []int{2}) {
		t.Errorf("Added = %v, %v", added, err)
	}
	if vs, err := r.Trailers(head+"^", "Ctx-Pack"); err != nil || strings.Join(vs, " ") != "ctx://aa ctx://bb" {
		t.Errorf("Trailers = %v, %v", vs, err)
	}
	if b, err := r.Show("HEAD~1", "a.txt"); err != nil || string(b) != "one\ntwo\n" {
		t.Errorf("Show = %q, %v", b, err)
	}
	if cs, err := r.Commits("HEAD~1..HEAD"); err != nil || len(cs) != 1 || cs[0] != head {
		t.Errorf("Commits = %v, %v", cs, err)
	}
	if _, err := r.Commit("--output=/tmp/x"); err == nil {
		t.Error("an option was taken for a revision")
	}
	git("mv", "a.txt", "b.txt")
	git("commit", "-q", "-m", "rename")
	if names := r.Names("", "b.txt"); !slices.Equal(names, []string{"a.txt"}) {
		t.Errorf("Names = %v", names)
	}
	git("mv", "b.txt", "c.txt")
	if names := r.Names("", "c.txt"); !slices.Equal(names, []string{"b.txt", "a.txt"}) {
		t.Errorf("Names of a staged rename = %v", names)
	}
	if names := r.Names("HEAD", "b.txt"); !slices.Equal(names, []string{"a.txt"}) {
		t.Errorf("Names at HEAD = %v", names)
	}
	git("mv", "c.txt", "b.txt")
	rel, err := r.Rel(filepath.Join(dir, "b.txt"))
	if err != nil || rel != "b.txt" {
		t.Errorf("Rel = %q, %v", rel, err)
	}
	if _, err := r.Rel(filepath.Join(dir, "..", "x")); err == nil {
		t.Error("Rel of a path outside the work tree succeeded")
	}

	// Names git writes specially, and a line that looks like a header,
	// whatever the configuration says of prefixes.
	git("config", "diff.noprefix", "true")
	git("config", "diff.mnemonicPrefix", "true")
	git("config", "diff.relative", "true")
	special := map[string]string{"my notes.txt": "one\n", "tab\there.txt": "x\n++ b/evil\n", "ünï cöde.txt": "a\nb\n"}
	for name, body := range special {
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	git("add", ".")
	adds, err = r.StagedAdded()
	if err != nil {
		t.Fatal(err)
	}
	staged = linesOf(adds)
	for name, body := range special {
		if want := []int{1, 2}[:strings.Count(body, "\n")]; !slices.Equal(staged[name], want) {
			t.Errorf("StagedAdded[%q] = %v, want %v (all %v)", name, staged[name], want, staged)
		}
	}
	if len(staged) != len(special) {
		t.Errorf("StagedAdded = %v", staged)
	}
	// Their contents, read by one git process; a submodule has none.
	git("update-index", "--add", "--cacheinfo", "160000,"+head+",sub")
	if adds, err = r.StagedAdded(); err != nil {
		t.Fatal(err)
	}
	if a := adds["sub"]; a == nil || a.Blob != "" {
		t.Errorf("submodule: %+v", a)
	}
	delete(adds, "sub")
	var names, ids []string
	for name, a := range adds {
		names, ids = append(names, name), append(ids, a.Blob)
		if want := strings.Split(strings.TrimSuffix(special[name], "\n"), "\n"); !slices.Equal(a.Text, want) {
			t.Errorf("%q: text %q, want %q", name, a.Text, want)
		}
	}
	ids = append(ids, ids[0]) // twice is fine
	names = append(names, names[0])
	err = r.Blobs(ids, func(i int, b []byte) error {
		if string(b) != special[names[i]] {
			t.Errorf("blob of %q = %q", names[i], b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Blobs([]string{strings.Repeat("1", 40)}, func(int, []byte) error { return nil }); err == nil {
		t.Error("Blobs of a missing blob succeeded")
	}
	if err := r.Blobs([]string{"HEAD:a.txt"}, func(int, []byte) error { return nil }); err == nil {
		t.Error("Blobs took a revision for a blob id")
	}
}

func TestLineSources(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(date string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("", "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	git("2026-03-01T00:00:00Z", "add", "a.txt")
	git("2026-03-01T00:00:00Z", "commit", "-q", "-m", "one")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\nnew\ntwo\n"), 0o644)
	git("2026-03-05T00:00:00Z", "commit", "-q", "-am", "two")
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	d1, d5 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC)
	if at, err := r.CommitTime("HEAD"); err != nil || !at.Equal(d5) {
		t.Errorf("CommitTime = %v, %v; want the committer date %v", at, err, d5)
	}
	for _, tc := range []struct {
		rev     string
		content string
		want    []time.Time
	}{
		{"HEAD", "", []time.Time{d1, d5, d1}},
		{"HEAD~1", "", []time.Time{d1, d1}},
		{"", "zero\none\nnew\ntwo\n", []time.Time{{}, d1, d5, d1}}, // a line not committed yet
	} {
		got, err := r.LineSources(tc.rev, "a.txt", []byte(tc.content))
		times := make([]time.Time, len(got))
		for i, g := range got {
			times[i] = g.Time
			if (g.Commit == "") != g.Time.IsZero() || g.Path != "a.txt" {
				t.Errorf("LineSources(%q)[%d] = %+v", tc.rev, i, g)
			}
		}
		if err != nil || !slices.EqualFunc(times, tc.want, time.Time.Equal) {
			t.Errorf("LineSources(%q) = %v, %v; want times %v", tc.rev, got, err, tc.want)
		}
	}
	head, _ := r.Commit("HEAD")
	first, _ := r.Commit("HEAD~1")
	if ps, err := r.Parents(head); err != nil || !slices.Equal(ps, []string{first}) {
		t.Errorf("Parents = %v, %v; want %v", ps, err, first)
	}
	for text, want := range map[string]bool{"new": true, "never there": false} {
		if got, err := r.Committed(text, "a.txt"); err != nil || got != want {
			t.Errorf("Committed(%q) = %v, %v; want %v", text, got, err, want)
		}
	}
}
