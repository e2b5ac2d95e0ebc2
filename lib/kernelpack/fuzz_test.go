package kernelpack

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/ctx-tools/ctx/lib/canon"
)

var fuzzSeeds = []string{
	`{}`, `[]`, `null`, `0`, `-0`, `1e400`, `"\ud800"`, `"\ud83d\ude00"`, `{"a":1,"a":2}`,
	`{"ﬁ":1,"😀":2,"a":[true,false,null,1.5e-7,"<&>\u2028"]}`, `123456789012345678901234567890`,
	"[1,\t2,\r\n3]", `{"__proto__":{"toString":1}}`, "\xEF\xBB\xBF{}", "\"caf\xE9\"", `[1,]`,
}

// FuzzCanonicalize checks the kernel canonicaliser against itself and
// against strict RFC 8785: canonical text parses back to the same canonical
// text (what BS8 relies on), is valid UTF-8, and equals lib/canon's JCS form
// whenever lib/canon accepts the input.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Canonicalize(data)
		if err != nil {
			return
		}
		if !utf8.Valid(c) {
			t.Fatalf("canonical form of %q is not UTF-8: %q", data, c)
		}
		again, err := Canonicalize(c)
		if err != nil {
			t.Fatalf("canonical form %q does not parse back: %v", c, err)
		}
		if !bytes.Equal(again, c) {
			t.Fatalf("canonicalisation is not idempotent:\n%q\n%q", c, again)
		}
		if _, err := CanonicalHash(data); err != nil {
			t.Fatalf("CanonicalHash failed where Canonicalize succeeded: %v", err)
		}
		if jcs, err := canon.Canonicalize(data); err == nil && !bytes.Equal(jcs, c) {
			t.Fatalf("kernel and JCS forms of %q differ:\nkernel %q\nJCS    %q", data, c, jcs)
		}
	})
}

// FuzzFileVerifiers runs the bundle, patch, model I/O and runner checks on
// arbitrary JSON: they may report violations or abort as the reference would
// throw, but never panic.
func FuzzFileVerifiers(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`{"operations":[{"op":"create","path":"a","content":["\u0000"]}],"total_bytes":"x","patch_schema_version":"1","source_proposal_id":1,"source_proposal_hash":1}`,
		`{"operations":[5,{"path":1}],"total_bytes":1,"patch_schema_version":"1","source_proposal_id":1,"source_proposal_hash":1}`,
		`{"model_io_schema_version":"1.0.0","adapter_id":"a","model_id":"m","mode":{"toString":1},"interactions":[{"i":0}]}`,
		`{"id":1,"schema_version":"0.1.0","kernel_version":1,"status":1,"root_node":"x","terminal_nodes":[{"id":[1]},{"id":"0"}],"outputs":[{"path":"b"},{"path":"a"}],"unresolved_questions":[{"priority":"10"},{"priority":9}],"stats":1}`,
	} {
		f.Add([]byte(s))
	}
	if dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "testdata", "kernel-packs")); err == nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parseBytes(data)
		if err != nil {
			return
		}
		check := func(name string, subs []subViolation, err error) {
			if err != nil {
				if _, ok := err.(*jsError); !ok {
					t.Fatalf("%s returned %T %v, want a *jsError", name, err, err)
				}
			}
			for _, s := range subs {
				if s.Rule == "" || s.Message == "" {
					t.Fatalf("%s gave an empty violation %+v", name, s)
				}
			}
		}
		subs, err := verifyBundle(v)
		check("verifyBundle", subs, err)
		subs, err = verifyPatch(v)
		check("verifyPatch", subs, err)
		subs, err = verifyModelIO(v)
		check("verifyModelIO", subs, err)
		check("verifyRunner", verifyRunner(v), nil)
	})
}
