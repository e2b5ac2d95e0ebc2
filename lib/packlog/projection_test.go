package packlog

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/userconfig"
)

// Manifests shaped to trip a projection: steps holding the same fields as
// the top level, steps spelled with an escape, duplicate members, steps as
// an object, odd spacing, strings full of gjson syntax.
var projectionDocs = []string{
	`{"created":"2026-02-10T09:00:00Z","environment":{"os":"linux"},"metadata":{"session":{"cwd":"/home/dev/projects/service"},"tags":["x","y"],"a":1},` +
		`"model":{"identifier":"m","parameters":{"temperature":0}},"steps":[{"metadata":{"a":2},"tool":"run_tests"},{"tool":"read_file"}],"version":"0.1"}`,
	`{"steps":[{"metadata":{"session":{"cwd":"/elsewhere"}}}],"metadata":{"session":{"cwd":"/elsewhere"},"a":"x)"}}`,
	`{"st\u0065ps":[{"tool":"run_tests"}],"metadata":{"a":"\")","b":true},"prompts":[{"role":"user"}]}`,
	`{"metadata":{"a":1},"steps":[1,2,3],"metadata":{"a":2},"steps":{"metadata":{"a":3}}}`,
	`{"steps":{"metadata":{"a":3},"#":1},"inputs":[{"name":"a.py"},{"name":"b.go"}],"outputs":[{"name":"a"}]}`,
	"{ \"metadata\" :\n { \"a\" : 0.5 , \"tags\" : [ ] } ,\t\"steps\" : [ ] , \"system_prompt\" : \"sha256:00\" }",
	`{"metadata":{"a":"*","b":"x\\","c":"caf\u00e9","d":null,"e":false,"f":"true"},"environment":{"os":"darwin"},"steps":[{"a":"*"}]}`,
	`{"metadata":{"session":{"cwd":"/home/dev/projects/service"}},"model":{"parameters":{"temperature":0.7}}}`,
	`{"version":"0.1"}`,
}

var projectionQueries = []string{
	`metadata.session.cwd=="/home/dev/projects/service"`,
	`metadata.session.cwd%"/home/*"`,
	`metadata.session.cwd!="/elsewhere"`,
	`metadata.session.cwd`,
	`metadata.a==1`, `metadata.a>1`, `metadata.a<=0.5`, `metadata.a`, `metadata.a==~true`, `metadata.b==~true`, `metadata.f==~true`,
	`metadata.a=="x)"`, `metadata.a=="\")"`, `metadata.a%"*"`, `metadata.a!%"x*"`, `metadata.b=="x\\"`, `metadata.c=="café"`,
	`metadata.d==~null`, `metadata.e==false`, `metadata.a  ==  1 `,
	`metadata.tags.#>1`, `metadata.tags.#`, `metadata.tags.#==0`,
	`metadata.tags.#(=="x")`, `metadata.tags.0=="x"`, `metadata.*`, `metadata.a*==1`, `metadata.?==1`,
	`metadata.a==1)|#(steps.#>0`, `metadata.a==1)#|#(steps`, `metadata.a=="x")#.steps`, `metadata.a=="x"]`,
	`metadata|@this`, `metadata.@reverse`, `metadata.[a,b]`, `metadata.{a}`, `metadata..a`, `metadata\.a==1`,
	`metadata.a=="x"||steps.#>0`, `metadata.#(a==1)#`, `metadata.#.a`,
	`metadata.session.cwd=="\u002fhome/dev/projects/service"`,
	`steps.#>0`, `steps.#(tool=="run_tests")`, `steps.0.metadata.a==2`, `steps.metadata.a==3`, `steps.#==3`,
	`model.parameters.temperature==0`, `model.identifier=="m"`, `environment.os=="linux"`, `environment.os!="linux"`,
	`version=="0.1"`, `system_prompt`, `prompts.#`, `prompts.0.role=="user"`,
	`inputs.#(name%"*.py")`, `inputs.#>1`, `outputs.0.name=="a"`, `created.x`,
}

// A query a projection answers gives, on it, what it gives on the
// manifest, for every manifest; the ones it cannot answer are left to the
// manifest.
func TestProjectionAnswers(t *testing.T) {
	t.Parallel()
	projected := 0
	for _, text := range projectionQueries {
		q, err := ParseQuery(text)
		if err != nil {
			t.Fatalf("ParseQuery(%q): %v", text, err)
		}
		if !q.NeedsManifest() {
			t.Fatalf("%q does not read manifests", text)
		}
		if !q.projected {
			continue
		}
		projected++
		for _, doc := range projectionDocs {
			proj, ok := project([]byte(doc))
			if !ok {
				t.Fatalf("no projection of %s", doc)
			}
			if bytes.Contains(proj, []byte(`"steps"`)) || bytes.Contains(proj, []byte(`"st\u0065ps"`)) {
				t.Fatalf("projection %s keeps steps", proj)
			}
			if got, want := q.Match(proj), q.Match([]byte(doc)); got != want {
				t.Errorf("%q on %s: projection %v, manifest %v", text, doc, got, want)
			}
		}
	}
	// The plain ones are answered from projections; anything that could
	// reach steps, or that gjson reads in ways hard to follow, is not.
	for text, want := range map[string]bool{
		`metadata.session.cwd=="/home/dev/projects/service"`: true,
		`metadata.tags.#>1`:               true,
		`model.parameters.temperature==0`: true,
		`metadata.a=="x)"`:                true,
		`metadata.a==1)|#(steps.#>0`:      false,
		`metadata.a=="x")#.steps`:         false,
		`metadata|@this`:                  false,
		`metadata..a`:                     false,
		`metadata.*`:                      false,
		`metadata\.a==1`:                  false,
		`steps.#>0`:                       false,
		`inputs.#(name%"*.py")`:           false,
	} {
		q, err := ParseQuery(text)
		if err != nil {
			t.Fatal(err)
		}
		if q.projected != want {
			t.Errorf("%q answered from a projection: %v, want %v", text, q.projected, want)
		}
	}
	if projected < 20 {
		t.Errorf("only %d queries answered from projections", projected)
	}
	for _, doc := range []string{`[1,2]`, `{"metadata":`, `"steps"`, `{"a":1}}`} {
		if _, ok := project([]byte(doc)); ok {
			t.Errorf("projection of %s, not a JSON object", doc)
		}
	}
}

// projectionFiles returns the projection files under dir.
func projectionFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, projectionDir, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// List with the cache selects what it selects without, for queries the
// projections answer and for those they do not; the first listing writes
// the projections, later ones read them, and a projection that is not
// whole is not used, and written again. So does Select along lineages
// (ctx-log --lineage), through the same cache.
func TestListProjections(t *testing.T) {
	defer func(n int) { cacheMin = n }(cacheMin)
	cacheMin = 10
	t.Run("list", func(t *testing.T) {
		s, ds := newStore(t, 40)
		testProjections(t, s, ds, func(o Options) ([]Entry, []error) {
			l, err := List(s, o)
			if err != nil {
				t.Fatal(err)
			}
			return l.Entries, l.Problems
		})
	})
	t.Run("lineage", func(t *testing.T) {
		s, ds := newStore(t, 40) // chains of 5: each lineage from ds[4], ds[9], …
		testProjections(t, s, ds, func(o Options) (kept []Entry, probs []error) {
			for tip := 4; tip < len(ds); tip += 5 {
				es, err := Lineage(s, ds[tip])
				if err != nil || len(es) != 5 {
					t.Fatal(len(es), err)
				}
				k, p := Select(s, es, o)
				kept, probs = append(kept, k...), append(probs, p...)
			}
			return kept, probs
		})
	})
}

// testProjections checks that list, listing s's packs ds, answers as it
// does without the cache, whatever the cache holds.
func testProjections(t *testing.T, s *store.Store, ds []digest.Digest, list0 func(Options) ([]Entry, []error)) {
	dir := t.TempDir()
	var queries []Options
	for _, text := range []string{`model.parameters.seed>20`, `model.parameters.seed<5`, `environment.os=="linux"`,
		`steps.#>2`, `inputs.#(name=="main.go")`, `model.parameters.temperature==0`, `metadata`} {
		q, err := ParseQuery(text)
		if err != nil {
			t.Fatal(err)
		}
		queries = append(queries, Options{Filter: Filter{Where: []Query{q}}}, Options{Filter: Filter{Where: []Query{q}}, Limit: 3})
	}
	list := func(o Options, cacheDir string) []string {
		t.Helper()
		o.CacheDir = cacheDir
		es, probs := list0(o)
		if len(probs) > 0 {
			t.Fatal(probs)
		}
		return hashes(es)
	}
	var want [][]string
	for _, o := range queries {
		want = append(want, list(o, ""))
	}
	for round := range 2 {
		for i, o := range queries {
			if got := list(o, dir); !slices.Equal(got, want[i]) {
				t.Errorf("round %d, %s: %v, want %v", round, o.Where[0], got, want[i])
			}
		}
		if n := len(projectionFiles(t, dir)); n != len(ds) {
			t.Fatalf("round %d: %d projections, want %d", round, n, len(ds))
		}
	}

	// The projections are read: one doctored whole (its checksum made
	// right) changes the answer; one doctored without, or cut short, or
	// with another manifest's header, does not, and is written again.
	seed := queries[0] // model.parameters.seed>20
	d := ds[0]         // seed 0
	pc := projectionCache(dir)
	file := pc.Path(d)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	body := b[bytes.IndexByte(b, '\n')+1:]
	forged := bytes.Replace(body, []byte(`"seed":0,`), []byte(`"seed":99,`), 1)
	if bytes.Equal(forged, body) {
		t.Fatalf("seed not found in %s", body)
	}
	if err := os.WriteFile(file, append(header(t, pc, d, forged), forged...), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := list(seed, dir); !slices.Contains(got, d.Short()) {
		t.Fatal("a projection with a right checksum was not read")
	}
	for name, bad := range map[string][]byte{
		"bad checksum":     append(bytes.Clone(b[:len(b)-len(body)]), forged...),
		"cut short":        append(header(t, pc, d, forged), forged[:len(forged)/2]...),
		"another manifest": append(header(t, pc, ds[1], forged), forged...),
		"empty":            nil,
		"header only":      header(t, pc, d, forged),
	} {
		if err := os.WriteFile(file, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if got := list(seed, dir); !slices.Equal(got, want[0]) {
			t.Errorf("%s: %v, want %v", name, got, want[0])
		}
		if nb, err := os.ReadFile(file); err != nil || !bytes.Equal(nb, b) {
			t.Errorf("%s: projection not written again (%v)", name, err)
		}
	}

	// A cache that cannot be written is only slower.
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.WriteFile(ro, nil, 0o400); err != nil { // a file where the directory would be
		t.Fatal(err)
	}
	if got := list(seed, ro); !slices.Equal(got, want[0]) {
		t.Errorf("unwritable cache: %v, want %v", got, want[0])
	}

	// A store with fewer packs than CacheMin keeps nothing.
	small := filepath.Join(t.TempDir(), "small")
	if got := list(Options{Filter: seed.Filter, CacheMin: len(ds) + 1}, small); !slices.Equal(got, want[0]) {
		t.Errorf("small store: %v, want %v", got, want[0])
	}
	if _, err := os.Stat(small); !os.IsNotExist(err) {
		t.Errorf("small store: cache made (%v)", err)
	}

	// A pack whose manifest is gone is reported, cache or not (a child,
	// whose manifest its lineage does not read).
	gone := ds[6]
	if err := os.Remove(s.ObjectPath(gone)); err != nil {
		t.Fatal(err)
	}
	for _, cacheDir := range []string{"", dir} {
		o := queries[2] // environment.os=="linux"
		o.CacheDir = cacheDir
		es, probs := list0(o)
		if len(probs) != 1 || slices.Contains(hashes(es), gone.Short()) {
			t.Errorf("cache %q: problems %v with the manifest of %s gone", cacheDir, probs, gone.Short())
		}
	}
}

// Random conditions built from gjson's syntax: whenever one is answered
// from projections, the answer is the manifest's.
func TestProjectionRandomQueries(t *testing.T) {
	t.Parallel()
	starts := []string{"metadata", "model", "environment", "inputs", "prompts", "steps", "version"}
	tokens := []string{".", "a", "session", "cwd", "tags", "steps", "metadata", "#", "0", "(", ")", "[", "]", "{", "}", `"`, `\`,
		"==", "!=", "<", ">=", "%", "!%", "~", "1", "x)", `"x"`, "*", "?", "|", "@this", "@reverse", ",", " ", "true", "null"}
	docs := make([][2][]byte, len(projectionDocs))
	for i, doc := range projectionDocs {
		proj, ok := project([]byte(doc))
		if !ok {
			t.Fatalf("no projection of %s", doc)
		}
		docs[i] = [2][]byte{[]byte(doc), proj}
	}
	r := rand.New(rand.NewPCG(1, 2))
	projected := 0
	for range 50000 {
		text := starts[r.IntN(len(starts))]
		for range r.IntN(8) {
			text += tokens[r.IntN(len(tokens))]
		}
		q, err := ParseQuery(text)
		if err != nil || !q.projected {
			continue
		}
		projected++
		for _, d := range docs {
			if got, want := q.Match(d[1]), q.Match(d[0]); got != want {
				t.Fatalf("%q on %s: projection %v, manifest %v", text, d[0], got, want)
			}
		}
	}
	t.Logf("%d random queries answered from projections", projected)
	if projected < 1000 {
		t.Errorf("only %d random queries answered from projections", projected)
	}
}

// Forget removes the projections of the packs given, one file each, and
// nothing else; a store that no longer holds them lists as before, and
// one that still does (sharing the cache) makes them again.
func TestForget(t *testing.T) {
	t.Parallel()
	s, ds := newStore(t, 20)
	other, ods := newStore(t, 20)
	if !slices.Equal(ds, ods) {
		t.Fatal("two stores made alike hold different packs")
	}
	dir := t.TempDir()
	q, err := ParseQuery(`model.parameters.seed>5`)
	if err != nil {
		t.Fatal(err)
	}
	list := func(s *store.Store, cacheDir string) []string {
		t.Helper()
		l, err := List(s, Options{Filter: Filter{Where: []Query{q}}, CacheMin: 10, CacheDir: cacheDir})
		if err != nil || len(l.Problems) > 0 {
			t.Fatal(err, l.Problems)
		}
		return hashes(l.Entries)
	}
	list(s, dir)
	pc := projectionCache(dir)
	if n := len(projectionFiles(t, dir)); n != len(ds) {
		t.Fatalf("%d projections, want %d", n, len(ds))
	}

	// The store collects its first five packs, as ctx-gc does.
	gone := ds[:5]
	for _, d := range gone {
		if err := s.RemovePackEntry(d); err != nil {
			t.Fatal(err)
		}
		if err := s.RemoveObject(d); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := Forget(dir, gone); n != len(gone) || err != nil {
		t.Fatalf("Forget = %d, %v; want %d, nil", n, err, len(gone))
	}
	for i, d := range ds {
		_, err := os.Lstat(pc.Path(d))
		if i < len(gone) && !os.IsNotExist(err) || i >= len(gone) && err != nil {
			t.Errorf("projection of pack %d: %v", i, err)
		}
	}
	if n, err := Forget(dir, gone); n != 0 || err != nil {
		t.Errorf("Forget again = %d, %v; want 0, nil", n, err)
	}
	if n, err := Forget("", ds); n != 0 || err != nil {
		t.Errorf("Forget without a cache = %d, %v", n, err)
	}
	if got, want := list(s, dir), list(s, ""); !slices.Equal(got, want) {
		t.Errorf("after Forget: %v, want %v", got, want)
	}
	if got, want := list(other, dir), list(other, ""); !slices.Equal(got, want) {
		t.Errorf("the other store: %v, want %v", got, want)
	}
	if n := len(projectionFiles(t, dir)); n != len(ds) {
		t.Errorf("%d projections after the other store's listing, want %d", n, len(ds))
	}
}

// header returns the header line pc writes for d's entry holding body,
// written in another directory.
func header(t *testing.T, pc userconfig.DigestCache, d digest.Digest, body []byte) []byte {
	t.Helper()
	pc.Dir = t.TempDir()
	if err := pc.Save(d, body); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pc.Path(d))
	if err != nil {
		t.Fatal(err)
	}
	return b[:bytes.IndexByte(b, '\n')+1]
}
