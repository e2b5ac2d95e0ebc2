package kernelpack

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/sharedtest"
)

// largeBundle is a bundle.json of n outputs of about 1 KiB each.
func largeBundle(n int) []byte {
	var outs []string
	for i := 0; i < n; i++ {
		outs = append(outs, fmt.Sprintf(`{"id":"out_%04d","type":"file","path":"src/f%04d.ts","content":%q,"content_hash":"sha256:%064x","source_constraints":["a","b"],"confidence":%d.5}`,
			i, i, strings.Repeat("export const x = 1; // é😀\n", 36), i, i%100))
	}
	return []byte(`{"id":"bundle_x","schema_version":"0.1.0","kernel_version":"0.1.0","status":"complete","root_node":{"constraints":["a","b"]},"terminal_nodes":[],"outputs":[` +
		strings.Join(outs, ",") + `],"unresolved_questions":[],"stats":{}}`)
}

func BenchmarkCanonicalHash(b *testing.B) {
	data := largeBundle(1000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := CanonicalHash(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyBundle(b *testing.B) {
	v, err := parseBytes(largeBundle(1000))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := verifyBundle(v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyPack(b *testing.B) {
	dir := sharedtest.Dir(b, "kernel-packs")
	pack := filepath.Join(dir, "valid-full")
	for b.Loop() {
		if r := Verify(pack, Options{Deep: true, Refs: true}); !r.OK {
			b.Fatalf("valid-full: %s", r.JSON())
		}
	}
}
