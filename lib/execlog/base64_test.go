package execlog

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/store"
)

// base64Log returns a log whose one input is n bytes as content_base64,
// with every '/' written as the JSON escape "\/" when escaped, and the
// bytes themselves.
func base64Log(n int, escaped bool) ([]byte, []byte) {
	raw := make([]byte, n)
	for i := range raw {
		raw[i] = byte(i*7 + i>>8)
	}
	enc := base64.StdEncoding.EncodeToString(raw)
	if escaped {
		enc = strings.ReplaceAll(enc, "/", `\/`)
	}
	return []byte(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"steps":[],"inputs":[{"name":"blob.bin","content_base64":"` + enc + `"}]}`), raw
}

// TestBase64Content packs content_base64, plain and with escapes, and
// reads back exactly the bytes encoded.
func TestBase64Content(t *testing.T) {
	t.Parallel()
	for _, escaped := range []bool{false, true} {
		for _, n := range []int{0, 1, 2, 3, 1000, 3 << 20} {
			t.Run(fmt.Sprintf("%d/escaped=%v", n, escaped), func(t *testing.T) {
				data, want := base64Log(n, escaped)
				s, _, err := store.Init(filepath.Join(t.TempDir(), ".ctx"))
				if err != nil {
					t.Fatal(err)
				}
				l, err := Parse(data, Options{})
				if err != nil {
					t.Fatal(err)
				}
				m, _, err := l.Pack(s)
				if err != nil {
					t.Fatal(err)
				}
				if m.Inputs[0].Size != int64(n) {
					t.Fatalf("size %d, want %d", m.Inputs[0].Size, n)
				}
				r, err := s.Open(m.Inputs[0].ContentRef)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				got, err := io.ReadAll(r)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("stored %d bytes (%v), want the %d encoded", len(got), err, n)
				}
			})
		}
	}
}

// BenchmarkBase64 parses and packs a log holding one content_base64 of 8,
// 16 and 64 MiB, plain and with '/' escaped "\/" (as some encoders write
// it): the time per byte must stay flat as the size grows.
func BenchmarkBase64(b *testing.B) {
	for _, c := range []struct {
		mib     int
		escaped bool
	}{{8, false}, {16, false}, {64, false}, {8, true}, {16, true}, {64, true}} {
		data, _ := base64Log(c.mib<<20, c.escaped)
		name := fmt.Sprintf("%dMiB", c.mib)
		if c.escaped {
			name += "-escaped"
		}
		mib := c.mib
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(mib << 20))
			dir := b.TempDir()
			for i := 0; i < b.N; i++ {
				s, _, err := store.Init(filepath.Join(dir, fmt.Sprint(i)))
				if err != nil {
					b.Fatal(err)
				}
				l, err := Parse(data, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := l.Pack(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
