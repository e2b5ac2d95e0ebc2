package execlog_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Every importer fixture and every shared agent log, imported and packed,
// prints (FromManifest, as ctx-fork --no-parent and ctx-show --resolve do)
// as a log that packs to the same hash.
func TestRoundTripImports(t *testing.T) {
	sources := sharedtest.AgentLogs(t, sharedtest.FixtureTree(t, "..", formats.Formats()), formats.Formats(), 10, func(name string) bool {
		return strings.HasPrefix(name, "malformed") || strings.HasPrefix(name, "bad")
	})
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	packed := 0
	for _, src := range sources {
		data, err := os.ReadFile(src.Path)
		if err != nil {
			t.Fatal(err)
		}
		format := src.Format
		if format == "" {
			if format, err = formats.Detect(filepath.Base(src.Path), data); err != nil {
				t.Logf("%s: %v", src.Path, err)
				continue
			}
		}
		b, _, err := formats.Import(format, data, importer.Options{Name: filepath.Base(src.Path)})
		if err != nil {
			t.Errorf("%s: import: %v", src.Path, err)
			continue
		}
		l, err := execlog.Parse(b, execlog.Options{SourceDateEpoch: "0"})
		if err != nil {
			t.Errorf("%s: the imported log does not parse: %v", src.Path, err)
			continue
		}
		m, _, err := l.Pack(s)
		if err != nil {
			t.Errorf("%s: pack: %v", src.Path, err)
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
			t.Fatalf("%s: %v", src.Path, err)
		}
		l2, err := execlog.Parse(js, execlog.Options{})
		if err != nil {
			t.Errorf("%s: the printed pack does not parse: %v", src.Path, err)
			continue
		}
		if d, err := l2.Hash(s); err != nil || d != m.Hash {
			t.Errorf("%s: printed and packed again gives %s (%v), want %s", src.Path, d, err, m.Hash)
		}
		packed++
	}
	t.Logf("%d logs packed and round-tripped", packed)
}
