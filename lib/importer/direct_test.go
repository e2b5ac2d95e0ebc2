package importer

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/sharedtest"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// packed is what packing a log gave: the manifest's bytes and the objects
// it references, or the error that stopped it.
type packed struct {
	manifest []byte
	objects  []digest.Digest
	warnings []string
	err      error
}

// packDirect packs ImportLog's log as ctx-pack does, unprinted: checked
// (Check), then packed.
func packDirect(s *store.Store, format string, data []byte, opts Options, po execlog.Options) packed {
	l, _, err := ImportLog(format, data, opts)
	if err != nil {
		return packed{err: err}
	}
	if err := l.Check(po); err != nil {
		return packed{err: err}
	}
	return pack(s, l)
}

// packPrinted packs the log Import prints, parsed again.
func packPrinted(s *store.Store, format string, data []byte, opts Options, po execlog.Options) packed {
	b, _, err := Import(format, data, opts)
	if err != nil {
		return packed{err: err}
	}
	l, err := execlog.Parse(b, po)
	if err != nil {
		return packed{err: err}
	}
	return pack(s, l)
}

func pack(s *store.Store, l *execlog.Log) packed {
	if err := l.CheckStore(s); err != nil {
		return packed{err: err}
	}
	m, _, err := l.Pack(s)
	if err != nil {
		return packed{err: err}
	}
	b, err := s.Get(m.Hash)
	if err != nil {
		return packed{err: err}
	}
	refs := m.Refs()
	slices.SortFunc(refs, func(a, b digest.Digest) int { return strings.Compare(a.String(), b.String()) })
	return packed{manifest: b, objects: slices.Compact(refs), warnings: l.Warnings}
}

// same says how the two packs differ, "" when they do not.
func same(direct, printed packed) string {
	switch {
	case (direct.err == nil) != (printed.err == nil):
		return fmt.Sprintf("unprinted: %v; printed: %v", direct.err, printed.err)
	case direct.err != nil:
		// The importer's own errors are the same errors; a log Check or
		// Parse refuses is refused by both.
		var ie1, ie2 *Error
		if errors.As(direct.err, &ie1) != errors.As(printed.err, &ie2) || ie1 != nil && ie1.Error() != ie2.Error() {
			return fmt.Sprintf("unprinted: %v; printed: %v", direct.err, printed.err)
		}
		return ""
	case !bytes.Equal(direct.manifest, printed.manifest):
		return fmt.Sprintf("manifests differ:\nunprinted: %s\nprinted:   %s", direct.manifest, printed.manifest)
	case !slices.Equal(direct.objects, printed.objects):
		return fmt.Sprintf("objects differ: %v and %v", direct.objects, printed.objects)
	case !slices.Equal(direct.warnings, printed.warnings):
		return fmt.Sprintf("warnings differ: %q and %q", direct.warnings, printed.warnings)
	}
	return ""
}

func newStore(t testing.TB) *store.Store {
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetSyncMode(store.SyncNone) // nothing here outlives the test
	return s
}

// Every importer fixture and every shared agent log packs to the same
// manifest and objects whether ctx-pack takes ImportLog's log as it is or
// prints it (Import) and parses it again, as it used to; a fixture one
// refuses, the other refuses too.
func TestUnprintedPackIsPrintedPack(t *testing.T) {
	t.Parallel()
	sources := sharedtest.AgentLogs(t, "testdata", Formats(), 40, nil)
	compared, failed := 0, 0
	for _, src := range sources {
		data, err := os.ReadFile(src.Path)
		if err != nil {
			t.Fatal(err)
		}
		format := src.Format
		if format == "" {
			if format, err = Detect(filepath.Base(src.Path), data); err != nil {
				continue
			}
		}
		// What ctx-pack gives an importer reading a file.
		opts := Options{Name: filepath.Base(src.Path), Dir: filepath.Dir(src.Path)}
		if format == ClaudeCode {
			if opts.Subagents, err = ClaudeCodeSubagents(src.Path); err != nil {
				t.Fatal(err)
			}
		}
		if format == OpenCode {
			if b, err := OpenCodeStorage(src.Path); err == nil && b != nil {
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
		if _, _, err := ImportLog(format, data, opts); err != nil {
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
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"c":1,"c":2}}]}}`), formatIndex(ClaudeCode))
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"a\ud800b"}]}}`), formatIndex(ClaudeCode))
	f.Add([]byte(`{"request":{"messages":[{"role":"user","content":"q"}],"temperature":{"a":1,"a":2}},"response":{"object":"chat.completion","choices":[{"message":{"role":"assistant","content":"x"}}]}}`), formatIndex(OpenAIChat))
	s1, s2 := newStore(f), newStore(f)
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		format := Formats()[int(which)%len(Formats())]
		direct := packDirect(s1, format, data, Options{}, execlog.Options{})
		printed := packPrinted(s2, format, data, Options{}, execlog.Options{})
		if d := same(direct, printed); d != "" {
			t.Fatalf("%s: %s", format, d)
		}
		if direct.err == nil {
			if _, err := manifest.Parse(direct.manifest); err != nil {
				t.Fatalf("%s: the manifest packed does not parse: %v", format, err)
			}
		}
	})
}
