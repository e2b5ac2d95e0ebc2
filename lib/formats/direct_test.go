package formats_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/agent/claudecode"
	"github.com/ctx-tools/ctx/lib/agent/opencode"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
	"github.com/ctx-tools/ctx/lib/internal/importtest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

type packed = importtest.Packed

// packDirect packs ImportLog's log, unprinted, as ctx-pack does.
func packDirect(s *store.Store, format string, data []byte, opts importer.Options, po execlog.Options) packed {
	l, _, err := formats.ImportLog(format, data, opts)
	return importtest.PackLog(s, l, err, po)
}

// packPrinted packs Import's log, printed then parsed.
func packPrinted(s *store.Store, format string, data []byte, opts importer.Options, po execlog.Options) packed {
	b, _, err := formats.Import(format, data, opts)
	return importtest.PackPrinted(s, b, err, po)
}

func same(direct, printed packed) string { return importtest.Same[*importer.Error](direct, printed) }

var newStore = importtest.NewStore

// Every importer fixture and every shared agent log packs to the same
// manifest and objects whether ctx-pack takes ImportLog's log as it is or
// prints it (Import) and parses it again, as it used to; a fixture one
// refuses, the other refuses too.
func TestUnprintedPackIsPrintedPack(t *testing.T) {
	sources := sharedtest.AgentLogs(t, sharedtest.FixtureTree(t, "..", formats.Formats()), formats.Formats(), 40, nil)
	compared, failed := 0, 0
	for _, src := range sources {
		data, err := os.ReadFile(src.Path)
		if err != nil {
			t.Fatal(err)
		}
		format := src.Format
		if format == "" {
			if format, err = formats.Detect(filepath.Base(src.Path), data); err != nil {
				continue
			}
		}
		// What ctx-pack gives an importer reading a file.
		opts := importer.Options{Name: filepath.Base(src.Path), Dir: filepath.Dir(src.Path)}
		if format == claudecode.Name {
			if opts.Subagents, err = claudecode.Subagents(src.Path); err != nil {
				t.Fatal(err)
			}
		}
		if format == opencode.Name {
			if b, err := opencode.Storage(src.Path); err == nil && b != nil {
				data = b
			}
		}
		// Without SOURCE_DATE_EPOCH, a log without times is dated (and
		// warned about) the same way.
		for _, po := range []execlog.Options{{}, {SourceDateEpoch: "1767225600"}} {
			direct := packDirect(newStore(t), format, data, opts, po)
			printed := packPrinted(newStore(t), format, data, opts, po)
			if d := same(direct, printed); d != "" {
				t.Errorf("%s (%s, SOURCE_DATE_EPOCH=%q): %s", src.Path, format, po.SourceDateEpoch, d)
			}
		}
		compared++
		if _, _, err := formats.ImportLog(format, data, opts); err != nil {
			failed++
		}
	}
	t.Logf("%d inputs compared, %d of them refused by both", compared, failed)
}

// FuzzUnprintedPack: on any input, ImportLog's log packs as the log Import
// prints does, and one is refused when the other is.
func FuzzUnprintedPack(f *testing.F) {
	addSeeds(f)
	// Values canonical JSON cannot carry, where an importer copies the
	// input's values and string literals as they are.
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"c":1,"c":2}}]}}`), formatIndex(claudecode.Name))
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"a\ud800b"}]}}`), formatIndex(claudecode.Name))
	f.Add([]byte(`{"request":{"messages":[{"role":"user","content":"q"}],"temperature":{"a":1,"a":2}},"response":{"object":"chat.completion","choices":[{"message":{"role":"assistant","content":"x"}}]}}`), formatIndex(importer.OpenAIChat))
	s1, s2 := newStore(f), newStore(f)
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		format := formats.Formats()[int(which)%len(formats.Formats())]
		direct := packDirect(s1, format, data, importer.Options{}, execlog.Options{})
		printed := packPrinted(s2, format, data, importer.Options{}, execlog.Options{})
		if d := same(direct, printed); d != "" {
			t.Fatalf("%s: %s", format, d)
		}
		if direct.Err == nil {
			if _, err := manifest.Parse(direct.Manifest); err != nil {
				t.Fatalf("%s: the manifest packed does not parse: %v", format, err)
			}
		}
	})
}
