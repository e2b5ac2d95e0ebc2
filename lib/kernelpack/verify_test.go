package kernelpack

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the verifier's output")

// fixtureCase is one verifier run: a pack path as given on the command line,
// options, and the exit code the rules prescribe. The expected stdout is
// testdata/golden/<golden>.json.
type fixtureCase struct {
	pack   string
	opts   Options
	golden string
	exit   int
}

var defaults = Options{Deep: true, Refs: true}

// sharedCases covers every fixture in ../shared/testdata/kernel-packs (see
// its README), plus a few runs with --no-deep / --no-refs.
var sharedCases = []fixtureCase{
	{pack: "valid-bundle", exit: 0},
	{pack: "valid-clarify", exit: 0},
	{pack: "valid-refuse", exit: 0},
	{pack: "valid-full", exit: 0},
	{pack: "valid-noncanonical-bundle", exit: 0},
	{pack: "valid-utf16-order", exit: 0},
	{pack: "meta-garbage-is-ignored", exit: 0},
	{pack: "missing-run", exit: 1},
	{pack: "missing-bundle", exit: 1},
	{pack: "only-meta", exit: 1},
	{pack: "unknown-file", exit: 1},
	{pack: "bad-run-schema", exit: 1},
	{pack: "run-not-object", exit: 1},
	{pack: "hash-mismatch", exit: 1},
	{pack: "hash-no-prefix", exit: 1},
	{pack: "bad-bundle-schema", exit: 1},
	{pack: "bundle-invariants", exit: 1},
	{pack: "bad-patch", exit: 1},
	{pack: "bad-evidence", exit: 1},
	{pack: "bad-model-io", exit: 1},
	{pack: "bad-runner", exit: 1},
	{pack: "bad-ledger", exit: 1},
	{pack: "ledger-blank-lines", exit: 1},
	{pack: "policy-mismatch", exit: 1},
	{pack: "subdir", exit: 1},
	{pack: "dir-named-bundle-json", exit: 1},
	{pack: "symlink-file", exit: 1},
	{pack: "symlink-bundle", exit: 1},
	{pack: "backslash-filename", exit: 1},
	{pack: "dots..in-name", exit: 1},
	{pack: "multi-violation", exit: 1},
	{pack: "pack-is-file", exit: 2},
	{pack: "pack-symlink", exit: 2},
	{pack: "no-such-pack", exit: 2},

	{pack: "bad-patch", opts: Options{Refs: true}, golden: "bad-patch.no-deep", exit: 0},
	{pack: "bad-ledger", opts: Options{Refs: true}, golden: "bad-ledger.no-deep", exit: 0},
	{pack: "bundle-invariants", opts: Options{Refs: true}, golden: "bundle-invariants.no-deep", exit: 0},
	{pack: "hash-mismatch", opts: Options{Deep: true}, golden: "hash-mismatch.no-refs", exit: 0},
	{pack: "valid-full", opts: Options{Deep: true}, golden: "valid-full.no-refs", exit: 0},
	{pack: "multi-violation", opts: Options{}, golden: "multi-violation.no-deep.no-refs", exit: 1},
}

// localCases uses testdata/packs, so the behaviour stays covered without ../shared.
var localCases = []fixtureCase{
	{pack: "local-valid", exit: 0},
	{pack: "local-violations", exit: 1},
}

// The verifier runs from inside the fixture directory with the bare
// fixture name, as the corpus README prescribes.
func TestSharedFixtures(t *testing.T) {
	t.Chdir(kernelPackCorpus(t))
	runCases(t, sharedCases)
}

func TestLocalFixtures(t *testing.T) {
	t.Chdir(filepath.Join("testdata", "packs"))
	runCases(t, localCases)
}

// goldenDir is set by TestMain to the absolute path of testdata/golden,
// since the fixture tests change directory.
var goldenDir string

func TestMain(m *testing.M) {
	flag.Parse()
	d, err := filepath.Abs(filepath.Join("testdata", "golden"))
	if err != nil {
		panic(err)
	}
	goldenDir = d
	os.Exit(m.Run())
}

func runCases(t *testing.T, cases []fixtureCase) {
	t.Helper()
	for _, c := range cases {
		name := c.golden
		if name == "" {
			name = c.pack
		}
		opts := c.opts
		if c.golden == "" {
			opts = defaults
		}
		t.Run(name, func(t *testing.T) {
			r := Verify(c.pack, opts)
			if r.Err != nil {
				t.Fatalf("Verify(%q) aborted: %v", c.pack, r.Err)
			}
			got := r.JSON()
			file := filepath.Join(goldenDir, name+".json")
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Verify(%q) output:\n got %s\nwant %s", c.pack, got, want)
			}
			if code := r.ExitCode(); code != c.exit {
				t.Errorf("Verify(%q).ExitCode() = %d, want %d", c.pack, code, c.exit)
			}
			if r.PackPath != c.pack {
				t.Errorf("PackPath = %q, want %q as given", r.PackPath, c.pack)
			}
		})
	}
}

// corpusLinks are the fixtures that are symbolic links, with their targets.
var corpusLinks = map[string]string{
	"pack-symlink":               "valid-bundle",
	"symlink-file/meta.json":     "run.json",
	"symlink-bundle/bundle.json": "../valid-bundle/bundle.json",
}

// kernelPackCorpus returns the kernel-packs fixture directory. A checkout
// or copy that cannot keep symlinks (git with core.symlinks=false) leaves
// each link as a small file holding its target; the corpus is then copied
// to a temporary directory with the links restored, since what those
// fixtures test is the verifier's handling of real symlinks.
func kernelPackCorpus(t *testing.T) string {
	dir := sharedtest.Dir(t, "kernel-packs")
	intact := true
	for p := range corpusLinks {
		fi, err := os.Lstat(filepath.Join(dir, p))
		if err != nil {
			t.Fatalf("fixture %s: %v", p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			intact = false
		}
	}
	if intact {
		return dir
	}
	t.Logf("%s holds symlinks as plain files; verifying a copy with the links restored", dir)
	tmp := t.TempDir()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		dst := filepath.Join(tmp, rel)
		if target, ok := corpusLinks[filepath.ToSlash(rel)]; ok {
			if d.Type()&fs.ModeSymlink == 0 {
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if strings.TrimSpace(string(b)) != target {
					t.Fatalf("fixture %s holds %q, want the link target %q", rel, b, target)
				}
			}
			return os.Symlink(target, dst)
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, b, 0o644)
		}
		t.Fatalf("unexpected entry %s in the fixture corpus", rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tmp
}
