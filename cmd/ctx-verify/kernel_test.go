package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/cli"
)

// links are the fixtures whose point is a symbolic link. A copy of the
// corpus that could not keep symlinks holds plain files there instead.
var links = map[string]string{
	"pack-symlink":   "pack-symlink",
	"symlink-file":   "symlink-file/meta.json",
	"symlink-bundle": "symlink-bundle/bundle.json",
}

// TestKernelFixtures runs ctx-verify --kernel-pack, in process, on every
// fixture of ../shared/testdata/kernel-packs (from inside that directory,
// with the bare name, as its README prescribes), and on every
// --no-deep/--no-refs variant lib/kernelpack has a golden for. Stdout
// must be the golden bytes, and the exit code what the verdict implies:
// 0 valid, 2 for an IO violation, else 1.
func TestKernelFixtures(t *testing.T) {
	goldens, err := filepath.Abs(filepath.Join("..", "..", "lib", "kernelpack", "testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	corpus := sharedtest.Dir(t, "kernel-packs")
	ents, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"no-such-pack"} // absent on purpose
	for _, e := range ents {
		if e.Name() != "README.md" && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	type run struct {
		pack, golden string
		flags        []string
	}
	var runs []run
	for _, n := range names {
		runs = append(runs, run{n, n, nil})
		for _, v := range []string{"no-deep", "no-refs", "no-deep.no-refs"} {
			if _, err := os.Stat(filepath.Join(goldens, n+"."+v+".json")); err == nil {
				var flags []string
				for _, f := range strings.Split(v, ".") {
					flags = append(flags, "--"+f)
				}
				runs = append(runs, run{n, n + "." + v, flags})
			}
		}
	}
	if len(runs) < 40 {
		t.Fatalf("only %d runs: fixtures or goldens are missing", len(runs))
	}
	t.Chdir(corpus)
	for _, r := range runs {
		t.Run(r.golden, func(t *testing.T) {
			if link, ok := links[r.pack]; ok {
				if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
					t.Skipf("%s is not a symlink in this copy of the corpus (lib/kernelpack's tests restore it)", link)
				}
			}
			want, err := os.ReadFile(filepath.Join(goldens, r.golden+".json"))
			if err != nil {
				t.Fatalf("no golden for fixture %s: %v", r.pack, err)
			}
			wantCode := 1
			switch {
			case gjson.GetBytes(want, "ok").Bool():
				wantCode = 0
			case strings.Contains(string(want), `"rule_id":"IO"`):
				wantCode = 2
			}
			var stdout, stderr bytes.Buffer
			args := append([]string{"--kernel-pack", r.pack}, r.flags...)
			code := cli.Run("ctx-verify", &verifyCmd{}, args, strings.NewReader(""), &stdout, &stderr)
			if code != wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, wantCode, stderr.String())
			}
			if !bytes.Equal(stdout.Bytes(), want) {
				t.Errorf("stdout:\n got %s\nwant %s", stdout.Bytes(), want)
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr: %s", stderr.Bytes())
			}
		})
	}
}
