package userconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/store"
)

func TestPath(t *testing.T) {
	t.Setenv("CTX_CONFIG", "/etc/ctx.json")
	if p, err := Path(); err != nil || p != "/etc/ctx.json" {
		t.Errorf("Path() = %q, %v with $CTX_CONFIG", p, err)
	}
	t.Setenv("CTX_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", "/x")
	if p, err := Path(); err != nil || p != "/x/ctx/config.json" {
		t.Errorf("Path() = %q, %v with $XDG_CONFIG_HOME", p, err)
	}
}

func TestLoadAndTrust(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	mine, _, err := store.Init(filepath.Join(dir, "mine", ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	theirs, _, err := store.Init(filepath.Join(dir, "theirs", ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "config.json")

	c, err := Load(path)
	if err != nil || c.Raw != nil || c.TrustsStore(mine) {
		t.Fatalf("missing config: %+v, %v; want empty, trusting nothing", c, err)
	}

	// A store is named by its .ctx directory or the one holding it, here
	// through ~ and a path that is not clean.
	for _, listed := range []string{filepath.Join(dir, "mine", ".ctx"), "~/mine", dir + "/x/../mine/"} {
		os.WriteFile(path, []byte(`{"tools":{},"trusted_stores":["`+listed+`"]}`), 0o644)
		c, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", listed, err)
		}
		if !c.TrustsStore(mine) || c.TrustsStore(theirs) {
			t.Errorf("trusted_stores [%s]: trusts mine %v, theirs %v; want true, false", listed, c.TrustsStore(mine), c.TrustsStore(theirs))
		}
		if !strings.Contains(string(c.Raw), `"tools"`) {
			t.Errorf("Raw = %s", c.Raw)
		}
	}

	for conf, want := range map[string]string{
		`{"trusted_stores":["relative/.ctx"]}`: `trusted_stores[0] "relative/.ctx": not an absolute path`,
		`{"trusted_stores":"/a"}`:              "config.json",
		`{`:                                    "config.json",
	} {
		os.WriteFile(path, []byte(conf), 0o644)
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to say %q", conf, err, want)
		}
	}

	// Not a regular file: refused, not read.
	os.Remove(path)
	os.Symlink("/dev/zero", path)
	if _, err := Load(path); err == nil {
		t.Error("a config that is a symlink to /dev/zero was read")
	}
}

// TestWriteCache: the file is made with its directory, replaced whole,
// and no temporary file is left; a name under a file is an error.
func TestWriteCache(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "a", "b")
	name := filepath.Join(dir, "c.bin")
	for _, want := range []string{"first", "second, longer"} {
		if err := WriteCache(name, []byte(want)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(name); err != nil || string(got) != want {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the directory, want 1", len(ents))
	}
	if err := WriteCache(filepath.Join(name, "d"), []byte("x")); err == nil {
		t.Error("wrote a cache file under a file")
	}
}
