package execlog_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Every importer fixture and every shared agent log, imported and packed,
// prints (FromManifest, as ctx-fork --no-parent and ctx-show --resolve do)
// as a log that packs to the same hash.
func TestRoundTripImports(t *testing.T) {
	type source struct{ path, format string }
	var sources []source
	fixtures, _ := filepath.Glob("../importer/testdata/*/*")
	for _, p := range fixtures {
		base := filepath.Base(p)
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() { // fuzz corpora
			continue
		}
		if strings.Contains(base, ".golden.") || strings.HasPrefix(base, "malformed") || strings.HasPrefix(base, "bad") {
			continue
		}
		format := filepath.Base(filepath.Dir(p))
		if !slices.Contains(importer.Formats(), format) {
			format = "" // a directory of mixed formats: detect
		}
		sources = append(sources, source{p, format})
	}
	if len(sources) < 10 {
		t.Fatalf("found %d importer fixtures", len(sources))
	}
	if root, err := sharedtest.Path(); err == nil {
		filepath.WalkDir(filepath.Join(root, "agent-logs"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && !strings.HasSuffix(p, ".md") {
				sources = append(sources, source{p, ""})
			}
			return nil
		})
	} else {
		t.Logf("shared agent logs skipped: %v", err)
	}
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	packed := 0
	for _, src := range sources {
		data, err := os.ReadFile(src.path)
		if err != nil {
			t.Fatal(err)
		}
		format := src.format
		if format == "" {
			if format, err = importer.Detect(filepath.Base(src.path), data); err != nil {
				t.Logf("%s: %v", src.path, err)
				continue
			}
		}
		b, _, err := importer.Import(format, data, importer.Options{Name: filepath.Base(src.path)})
		if err != nil {
			t.Errorf("%s: import: %v", src.path, err)
			continue
		}
		l, err := execlog.Parse(b, execlog.Options{SourceDateEpoch: "0"})
		if err != nil {
			t.Errorf("%s: the imported log does not parse: %v", src.path, err)
			continue
		}
		m, _, err := l.Pack(s)
		if err != nil {
			t.Errorf("%s: pack: %v", src.path, err)
			continue
		}
		loaded, err := manifest.Load(s, m.Hash)
		if err != nil {
			t.Fatal(err)
		}
		back, err := execlog.FromManifest(s, loaded)
		if err != nil {
			t.Fatal(err)
		}
		js, err := back.JSON()
		if err != nil {
			t.Fatalf("%s: %v", src.path, err)
		}
		l2, err := execlog.Parse(js, execlog.Options{})
		if err != nil {
			t.Errorf("%s: the printed pack does not parse: %v", src.path, err)
			continue
		}
		if d, err := l2.Hash(s); err != nil || d != m.Hash {
			t.Errorf("%s: printed and packed again gives %s (%v), want %s", src.path, d, err, m.Hash)
		}
		packed++
	}
	t.Logf("%d logs packed and round-tripped", packed)
}
