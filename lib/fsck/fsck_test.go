package fsck

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// fixture is a store with two packs, the second a child of the first,
// latest pointing at the child and a tag at the parent.
type fixture struct {
	s        *store.Store
	parent   *manifest.Manifest
	child    *manifest.Manifest
	input    digest.Digest // referenced by both packs
	output   digest.Digest // child's output
	nObjects int
	nBytes   int64
}

func put(t *testing.T, s *store.Store, b string) digest.Digest {
	t.Helper()
	d, _, err := s.Put([]byte(b))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{s: s}
	f.input = put(t, s, "package main\n")
	sys := put(t, s, "You are terse.")
	prompt := put(t, s, "Fix the bug.")
	step := put(t, s, "package main\n")
	f.parent = &manifest.Manifest{
		Version: manifest.Version, Created: "2026-02-10T09:00:00Z",
		Model:        manifest.Model{Identifier: "gpt-4o"},
		SystemPrompt: sys,
		Prompts:      []manifest.Prompt{{Role: "user", ContentRef: prompt}},
		Inputs:       []manifest.File{{Name: "main.go", ContentRef: f.input, Size: 13}},
		Steps: []manifest.Step{{Index: 0, Type: manifest.ToolCall, Tool: "read_file",
			Parameters: []byte(`{"path":"main.go"}`), OutputRef: step, Deterministic: true}},
		Outputs: []manifest.Output{},
	}
	if _, _, err := manifest.Commit(s, f.parent); err != nil {
		t.Fatal(err)
	}
	f.output = put(t, s, "# Result\n\nfixed\n")
	f.child = &manifest.Manifest{
		Version: manifest.Version, Created: "2026-02-11T09:00:00Z", Parent: f.parent.Hash,
		Model:   manifest.Model{Identifier: "gpt-4o"},
		Prompts: []manifest.Prompt{{Role: "user", ContentRef: prompt}},
		Inputs:  []manifest.File{{Name: "main.go", ContentRef: f.input, Size: 13}},
		Steps:   []manifest.Step{},
		Outputs: []manifest.Output{{Name: "result.md", ContentRef: f.output, Size: 16}},
	}
	if _, _, err := manifest.Commit(s, f.child); err != nil {
		t.Fatal(err)
	}
	setRef(t, s, store.Latest, f.child.Hash)
	setRef(t, s, "v1", f.parent.Hash)
	ds, err := s.Objects("")
	if err != nil {
		t.Fatal(err)
	}
	f.nObjects = len(ds)
	for _, d := range ds {
		n, _ := s.Size(d)
		f.nBytes += n
	}
	return f
}

func setRef(t *testing.T, s *store.Store, name string, d digest.Digest) {
	t.Helper()
	if err := s.UpdateRef(name, func(*digest.Digest) (digest.Digest, error) { return d, nil }); err != nil {
		t.Fatal(err)
	}
}

func objRel(d digest.Digest) string { return "objects/" + d.Hex()[:2] + "/" + d.Hex()[2:] }

// overwrite replaces a read-only store file's bytes.
func overwrite(t *testing.T, s *store.Store, rel string, b []byte) {
	t.Helper()
	p := s.Path(filepath.FromSlash(rel))
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func verifyStore(t *testing.T, s *store.Store) *Report {
	t.Helper()
	r, err := Store(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func wantViolations(t *testing.T, got []Violation, want ...Violation) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("violations:\n got %v\nwant %v", got, want)
	}
}

func TestCleanStore(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := verifyStore(t, f.s)
	if !r.OK() || r.ExitCode() != 0 {
		t.Fatalf("clean store: %s", r.JSON())
	}
	// 6 distinct objects: the shared input/step bytes, system prompt,
	// prompt, output and two manifests.
	if f.nObjects != 6 {
		t.Fatalf("fixture has %d objects, want 6", f.nObjects)
	}
	want := fmt.Sprintf(`{"bytes_verified":%d,"objects_verified":6,"ok":true,"packs_verified":2,"refs_verified":2,"store":%q}`, f.nBytes, f.s.Root())
	if got := string(r.JSON()); got != want {
		t.Errorf("JSON:\n got %s\nwant %s", got, want)
	}
	wantHuman := fmt.Sprintf("store %s: ok; 6 objects (%s), 2 packs, 2 refs verified\n", f.s.Root(), size(f.nBytes))
	if got := r.Human(); got != wantHuman {
		t.Errorf("Human:\n got %q\nwant %q", got, wantHuman)
	}
}

func TestTamperedObject(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	overwrite(t, f.s, objRel(f.output), []byte("# Result\n\nedited\n"))
	r := verifyStore(t, f.s)
	wantViolations(t, r.Violations, Violation{RuleObject, objRel(f.output),
		"content hashes to " + digest.Of([]byte("# Result\n\nedited\n")).String() + ", not to its name"})
	if r.ExitCode() != 1 || !strings.Contains(string(r.JSON()), `"ok":false`) {
		t.Errorf("exit %d, JSON %s", r.ExitCode(), r.JSON())
	}
}

func TestDeletedObject(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := os.Remove(f.s.ObjectPath(f.input)); err != nil {
		t.Fatal(err)
	}
	r := verifyStore(t, f.s)
	// The input and step 0's output share bytes, so the parent loses two
	// references and the child one.
	want := []Violation{
		{RuleDangling, "packs/" + f.child.Hash.Hex(), "inputs[0].content_ref references " + f.input.String() + ", which is not in the store"},
		{RuleDangling, "packs/" + f.parent.Hash.Hex(), "inputs[0].content_ref references " + f.input.String() + ", which is not in the store"},
		{RuleDangling, "packs/" + f.parent.Hash.Hex(), "steps[0].output_ref references " + f.input.String() + ", which is not in the store"},
	}
	if f.child.Hash.Hex() > f.parent.Hash.Hex() {
		// Sorted by path: the parent's come first.
		want = append(want[1:], want[0])
	}
	wantViolations(t, r.Violations, want...)
}

func TestCorruptManifest(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rel := objRel(f.child.Hash)
	b, _ := os.ReadFile(f.s.Path(filepath.FromSlash(rel)))
	bad := bytes.Replace(b, []byte("gpt-4o"), []byte("gpt-5o"), 1)
	overwrite(t, f.s, rel, bad)
	r := verifyStore(t, f.s)
	wantViolations(t, r.Violations,
		Violation{RuleObject, rel, "content hashes to " + digest.Of(bad).String() + ", not to its name"},
		Violation{RuleManifest, "packs/" + f.child.Hash.Hex(), "manifest object " + rel + " is corrupt"},
	)
}

func TestUnparsableManifest(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// A well-named object that is not a manifest, with a pack entry.
	d := put(t, f.s, `{"version":"0.1","created":"yesterday"}`)
	if _, err := f.s.PutPackEntry(d, []byte(`{"hash":"`+d.String()+`",`+"\n")); err != nil {
		t.Fatal(err)
	}
	r := verifyStore(t, f.s)
	wantViolations(t, r.Violations,
		Violation{RuleEntry, "packs/" + d.Hex(), `is not valid JSON: line 2, column 1: unexpected end of JSON input`},
		Violation{RuleManifest, "packs/" + d.Hex(), `manifest does not parse: created: "yesterday" is not an RFC 3339 time`},
	)
}

func TestMissingManifest(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := os.Remove(f.s.ObjectPath(f.parent.Hash)); err != nil {
		t.Fatal(err)
	}
	r := verifyStore(t, f.s)
	wantViolations(t, r.Violations,
		Violation{RuleManifest, "packs/" + f.parent.Hash.Hex(), "manifest object " + objRel(f.parent.Hash) + " is missing"},
	)
}

func TestRefs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	nowhere := digest.Of([]byte("no such pack"))
	setRef(t, f.s, "dangling", nowhere)
	setRef(t, f.s, "object", f.input) // an object, not a pack
	os.WriteFile(f.s.Path("refs", "tags", "garbled"), []byte("main\n"), 0o644)
	os.WriteFile(f.s.Path("refs", "tags", "-bad"), []byte(f.child.Hash.String()+"\n"), 0o644)
	os.WriteFile(f.s.Path("refs", "latest.lock"), nil, 0o644)
	r := verifyStore(t, f.s)
	wantViolations(t, r.Violations,
		Violation{RuleRef, "refs/tags/-bad", "is not a valid tag name"},
		Violation{RuleRef, "refs/tags/dangling", "points at " + nowhere.String() + ", which is not a finalized pack"},
		Violation{RuleRef, "refs/tags/garbled", `holds "main", not sha256:<64 lowercase hex digits>`},
		Violation{RuleRef, "refs/tags/object", "points at " + f.input.String() + ", which is not a finalized pack"},
	)
	wantViolations(t, r.Warnings,
		Violation{RuleTemp, "refs/latest.lock", "lock file of an interrupted or running ref update; safe to delete when no ctx command is running"})
	if r.Refs != 6 {
		t.Errorf("refs_verified %d, want 6", r.Refs)
	}
}

func TestLayout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	root := f.s.Root()
	os.WriteFile(filepath.Join(root, "stray.txt"), nil, 0o644)
	os.WriteFile(filepath.Join(root, "objects", "zz"), nil, 0o644)
	os.WriteFile(filepath.Join(root, "objects", f.input.Hex()[:2], "short"), nil, 0o644)
	os.WriteFile(filepath.Join(root, "packs", "README"), nil, 0o644)
	os.Mkdir(filepath.Join(root, "drafts"), 0o755)
	os.WriteFile(filepath.Join(root, "drafts", "d.json"), []byte("{}"), 0o644)
	os.Symlink("d.json", filepath.Join(root, "drafts", "link.json"))
	// An object replaced by a symlink to identical bytes elsewhere.
	outside := filepath.Join(t.TempDir(), "out")
	os.WriteFile(outside, []byte("# Result\n\nfixed\n"), 0o644)
	os.Remove(f.s.ObjectPath(f.output))
	os.Symlink(outside, f.s.ObjectPath(f.output))
	// tmp/ leftovers are warnings.
	os.MkdirAll(filepath.Join(root, "tmp"), 0o755)
	os.WriteFile(filepath.Join(root, "tmp", "obj-123"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(root, "packs", ".tmp-abc-1"), nil, 0o644)
	os.WriteFile(filepath.Join(root, "drafts", ".tmp-d-1"), nil, 0o644)

	r := verifyStore(t, f.s)
	wantViolations(t, r.Violations,
		Violation{RuleLayout, objRel(f.input)[:len("objects/xx/")] + "short", "is not an object name (62 lowercase hex digits)"},
		Violation{RuleLayout, "objects/zz", "is not an object fan-out directory (two lowercase hex digits)"},
		Violation{RuleLayout, "packs/README", "is not a pack entry name (64 lowercase hex digits)"},
		Violation{RuleLayout, "stray.txt", "is not part of the store layout"},
		Violation{RuleFileType, "drafts/link.json", "is a symlink"},
		Violation{RuleFileType, objRel(f.output), "is a symlink"},
	)
	tmpMsg := "leftover temporary file of an interrupted or running write; safe to delete when no ctx command is running"
	wantViolations(t, r.Warnings,
		Violation{RuleTemp, "drafts/.tmp-d-1", tmpMsg},
		Violation{RuleTemp, "packs/.tmp-abc-1", tmpMsg},
		Violation{RuleTemp, "tmp/obj-123", tmpMsg},
	)
}

func TestOnlyWarnings(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	os.MkdirAll(f.s.Path("tmp"), 0o755)
	os.WriteFile(f.s.Path("tmp", "obj-1"), []byte("x"), 0o644)
	r := verifyStore(t, f.s)
	if !r.OK() || r.ExitCode() != 0 || len(r.Warnings) != 1 {
		t.Fatalf("tmp leftovers only: ok=%v warnings=%v", r.OK(), r.Warnings)
	}
	if !strings.Contains(string(r.JSON()), `"ok":true`) || !strings.Contains(string(r.JSON()), `"warnings":[{"message":`) {
		t.Errorf("JSON %s", r.JSON())
	}
}

func TestEntryDisagrees(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rel := "packs/" + f.child.Hash.Hex()
	sum := manifest.Summarize(f.child)
	sum.Model, sum.Steps = "gpt-5", 9
	b, _ := manifest.EncodeSummary(sum)
	overwrite(t, f.s, rel, b)
	good, _ := manifest.EncodeSummary(manifest.Summarize(f.parent))
	overwrite(t, f.s, "packs/"+f.parent.Hash.Hex(), bytes.ReplaceAll(good, []byte(","), []byte(", ")))
	r := verifyStore(t, f.s)
	want := []Violation{
		{RuleEntry, rel, "disagrees with its manifest on model, steps"},
		{RuleEntry, "packs/" + f.parent.Hash.Hex(), "is not in canonical form"},
	}
	if want[0].Path > want[1].Path {
		want[0], want[1] = want[1], want[0]
	}
	wantViolations(t, r.Violations, want...)
}

// TestStable checks that a store with many faults gives byte-identical,
// sorted output whatever the number of workers.
func TestStable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for i := range 300 {
		put(t, f.s, fmt.Sprintf("object %d", i))
	}
	overwrite(t, f.s, objRel(f.output), []byte("tampered"))
	os.Remove(f.s.ObjectPath(f.input))
	setRef(t, f.s, "gone", digest.Of([]byte("x")))
	os.WriteFile(f.s.Path("junk"), nil, 0o644)
	var first []byte
	for _, workers := range []int{1, 2, 3, 8, 2} {
		r, err := Store(f.s, Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		b := r.JSON()
		if first == nil {
			first = b
		} else if !bytes.Equal(b, first) {
			t.Fatalf("workers=%d gave other bytes:\n%s\n%s", workers, b, first)
		}
		if r.Objects != f.nObjects+300-1 {
			t.Errorf("objects_verified %d, want %d", r.Objects, f.nObjects+300-1)
		}
		for i := 1; i < len(r.Violations); i++ {
			a, b := r.Violations[i-1], r.Violations[i]
			if a.RuleID > b.RuleID || a.RuleID == b.RuleID && (a.Path > b.Path || a.Path == b.Path && a.Message >= b.Message) {
				t.Errorf("violations out of order: %v before %v", a, b)
			}
		}
	}
	if !bytes.Contains(first, []byte(`"rule_id":"ST1"`)) || !bytes.Contains(first, []byte(`"rule_id":"ST6"`)) || !bytes.Contains(first, []byte(`"rule_id":"ST7"`)) || !bytes.Contains(first, []byte(`"rule_id":"ST2"`)) {
		t.Errorf("missing expected rules: %s", first)
	}
}

func TestProgress(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var calls, lastObjs int
	var lastBytes int64
	_, err := Store(f.s, Options{Progress: func(o int, b int64) {
		calls++
		if o < lastObjs || b < lastBytes {
			t.Errorf("progress went backwards: %d,%d after %d,%d", o, b, lastObjs, lastBytes)
		}
		lastObjs, lastBytes = o, b
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || lastObjs != f.nObjects || lastBytes != f.nBytes {
		t.Errorf("progress: %d calls, last %d objects %d bytes; want %d, %d", calls, lastObjs, lastBytes, f.nObjects, f.nBytes)
	}
}

func TestPack(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r, err := Pack(f.s, f.parent.Hash, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Manifest, input (= step output), system prompt, prompt.
	b, _ := manifest.Encode(f.parent)
	wantBytes := int64(len(b) + len("package main\n") + len("You are terse.") + len("Fix the bug."))
	want := fmt.Sprintf(`{"bytes_verified":%d,"objects_verified":4,"ok":true,"pack":"%s","store":%q}`, wantBytes, f.parent.Hash, f.s.Root())
	if got := string(r.JSON()); got != want {
		t.Errorf("JSON:\n got %s\nwant %s", got, want)
	}

	// The child's parent is present: no warning. Tamper its output and
	// the pack is invalid.
	overwrite(t, f.s, objRel(f.output), []byte("tampered"))
	r, _ = Pack(f.s, f.child.Hash, Options{})
	wantViolations(t, r.Violations, Violation{RuleObject, objRel(f.output), "content hashes to " + digest.Of([]byte("tampered")).String() + ", not to its name"})
	if len(r.Warnings) != 0 || r.ExitCode() != 1 {
		t.Errorf("warnings %v, exit %d", r.Warnings, r.ExitCode())
	}
	if !strings.HasPrefix(r.Human(), "pack "+f.child.Hash.String()+": 1 violation; ") || !strings.Contains(r.Human(), "\n  ST1  "+objRel(f.output)+": content hashes to") {
		t.Errorf("Human:\n%s", r.Human())
	}

	// Without its parent pack, the child gets a warning, not a violation.
	os.Chmod(f.s.Path("packs"), 0o755)
	os.Remove(f.s.Path("packs", f.parent.Hash.Hex()))
	os.Remove(f.s.ObjectPath(f.input))
	r, _ = Pack(f.s, f.child.Hash, Options{})
	wantViolations(t, r.Violations,
		Violation{RuleObject, objRel(f.output), "content hashes to " + digest.Of([]byte("tampered")).String() + ", not to its name"},
		Violation{RuleDangling, "packs/" + f.child.Hash.Hex(), "inputs[0].content_ref references " + f.input.String() + ", which is not in the store"})
	wantViolations(t, r.Warnings, Violation{RuleParent, "packs/" + f.child.Hash.Hex(), "parent " + f.parent.Hash.String() + " is not a finalized pack in this store"})

	// The parent's manifest object is still there, but not finalized.
	r, err = Pack(f.s, f.parent.Hash, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantViolations(t, r.Violations,
		Violation{RuleEntry, "packs/" + f.parent.Hash.Hex(), "is missing: the manifest object exists but the pack was never finalized"},
		Violation{RuleDangling, "packs/" + f.parent.Hash.Hex(), "inputs[0].content_ref references " + f.input.String() + ", which is not in the store"},
		Violation{RuleDangling, "packs/" + f.parent.Hash.Hex(), "steps[0].output_ref references " + f.input.String() + ", which is not in the store"},
	)

	// Neither an entry nor an object: not found.
	if _, err := Pack(f.s, digest.Of([]byte("nothing")), Options{}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown pack: err %v, want ErrNotFound", err)
	}
}

func TestPackCorruptManifest(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rel := objRel(f.parent.Hash)
	overwrite(t, f.s, rel, []byte("{}"))
	r, err := Pack(f.s, f.parent.Hash, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantViolations(t, r.Violations,
		Violation{RuleObject, rel, "content hashes to " + digest.Of([]byte("{}")).String() + ", not to its name"},
		Violation{RuleManifest, "packs/" + f.parent.Hash.Hex(), "manifest object " + rel + " is corrupt"},
	)
}

// BenchmarkStore verifies a store of 2,000 objects of 10 KiB; the
// 10,000-object comparison with sha256sum is scripts/bench-verify.sh.
func BenchmarkStore(b *testing.B) {
	s, _, err := store.Init(filepath.Join(b.TempDir(), ".ctx"))
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 10<<10)
	var total int64
	for i := range 2000 {
		copy(buf, fmt.Sprintf("object %d", i))
		if _, _, err := s.Put(buf); err != nil {
			b.Fatal(err)
		}
		total += int64(len(buf))
	}
	b.SetBytes(total)
	for b.Loop() {
		r, err := Store(s, Options{})
		if err != nil || !r.OK() {
			b.Fatalf("%v %s", err, r.JSON())
		}
	}
}

// TestManifestsHashedOnce checks that the objects pass leaves the
// manifests to the packs pass, which hashes each as it reads it to parse:
// each object is hashed once, and a corrupt manifest among many intact
// ones is still both a corrupt object and a corrupt manifest.
func TestManifestsHashedOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var ms []*manifest.Manifest
	for i := range 20 {
		ms = append(ms, commitPack(t, f.s, i))
	}
	rel := objRel(ms[7].Hash)
	b, _ := os.ReadFile(f.s.Path(filepath.FromSlash(rel)))
	bad := bytes.Replace(b, []byte(`"in.txt"`), []byte(`"in.txx"`), 1)
	overwrite(t, f.s, rel, bad)
	var total int64
	ds, _ := f.s.Objects("")
	for _, d := range ds {
		n, _ := f.s.Size(d)
		total += n
	}

	c := newChecker(f.s, Options{Workers: 3})
	c.manifests = c.listManifests()
	c.checkObjects()
	for _, m := range append(ms, f.parent, f.child) {
		if _, seen := c.known(m.Hash); seen {
			t.Fatalf("the objects pass hashed manifest %s", m.Hash)
		}
	}
	if c.objects != len(ds)-22 {
		t.Errorf("objects pass hashed %d objects, want the %d that are not manifests", c.objects, len(ds)-22)
	}
	c.checkPacks()
	c.verify(c.deferred)
	r := c.report(digest.Digest{})
	if r.Objects != len(ds) || r.Bytes != total {
		t.Errorf("hashed %d objects, %d bytes; want each of the %d objects (%d bytes) once", r.Objects, r.Bytes, len(ds), total)
	}
	wantViolations(t, r.Violations,
		Violation{RuleObject, rel, "content hashes to " + digest.Of(bad).String() + ", not to its name"},
		Violation{RuleManifest, "packs/" + ms[7].Hash.Hex(), "manifest object " + rel + " is corrupt"},
	)
	r.Refs = 2 // the passes above leave refs/ out
	if r2 := verifyStore(t, f.s); !bytes.Equal(r2.JSON(), r.JSON()) {
		t.Errorf("Store gives\n%s\nthe passes gave\n%s", r2.JSON(), r.JSON())
	}
}

// TestManifestAlsoReferenced checks a corrupt manifest that another pack
// references as an object: whichever worker hashes it first, it is
// reported once and counted once.
func TestManifestAlsoReferenced(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b, err := os.ReadFile(f.s.ObjectPath(f.parent.Hash))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		m := &manifest.Manifest{
			Version: manifest.Version, Created: "2026-02-12T09:00:00Z",
			Model:   manifest.Model{Identifier: "m"},
			Prompts: []manifest.Prompt{},
			Inputs:  []manifest.File{{Name: fmt.Sprintf("parent-%d.json", i), ContentRef: f.parent.Hash, Size: int64(len(b))}},
			Steps:   []manifest.Step{},
			Outputs: []manifest.Output{},
		}
		if _, _, err := manifest.Commit(f.s, m); err != nil {
			t.Fatal(err)
		}
	}
	rel := objRel(f.parent.Hash)
	bad := bytes.Replace(b, []byte("gpt-4o"), []byte("gpt-5o"), 1)
	overwrite(t, f.s, rel, bad)
	ds, _ := f.s.Objects("")
	for _, workers := range []int{1, 2, 8} {
		r, err := Store(f.s, Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		wantViolations(t, r.Violations,
			Violation{RuleObject, rel, "content hashes to " + digest.Of(bad).String() + ", not to its name"},
			Violation{RuleManifest, "packs/" + f.parent.Hash.Hex(), "manifest object " + rel + " is corrupt"},
		)
		if r.Objects != len(ds) {
			t.Errorf("workers=%d: hashed %d objects, want %d", workers, r.Objects, len(ds))
		}
	}
}

// TestManifestTooLargeToRead checks a manifest larger than what is read
// into memory: hashed as a stream (intact), and reported as unread.
func TestManifestTooLargeToRead(t *testing.T) {
	f := newFixture(t)
	// The larger of the two manifests.
	big := f.child.Hash
	b, err := os.ReadFile(f.s.ObjectPath(big))
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := os.ReadFile(f.s.ObjectPath(f.parent.Hash)); len(p) > len(b) {
		big, b = f.parent.Hash, p
	}
	defer func(max int64) { store.MaxObjectInMemory = max }(store.MaxObjectInMemory)
	store.MaxObjectInMemory = int64(len(b)) - 1
	r := verifyStore(t, f.s)
	rel := objRel(big)
	wantViolations(t, r.Violations,
		Violation{RuleManifest, "packs/" + big.Hex(), fmt.Sprintf("manifest object %s cannot be read: it is %d bytes, more than the %d read into memory", rel, len(b), len(b)-1)},
	)
	if r.Objects != f.nObjects || r.Bytes != f.nBytes {
		t.Errorf("hashed %d objects, %d bytes; want %d, %d", r.Objects, r.Bytes, f.nObjects, f.nBytes)
	}
}
