package remote

import (
	"bytes"
	"io"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
)

// FuzzReadBucket: ReadBucket accepts only canonical tars: whatever it
// accepts, WriteBucket writes back byte for byte, and every entry hashes
// to its name.
func FuzzReadBucket(f *testing.F) {
	objs := map[digest.Digest][]byte{}
	var list []Object
	for _, c := range []string{"", "a", "hello\n", string(make([]byte, 700))} {
		objs[digest.Of([]byte(c))] = []byte(c)
		list = append(list, Object{Digest: digest.Of([]byte(c)), Size: int64(len(c))})
	}
	l, _ := Plan(list)
	for _, b := range l.Buckets {
		var buf bytes.Buffer
		WriteBucket(&buf, b, memOpener(objs))
		f.Add(b.Prefix, buf.Bytes())
		f.Add(b.Prefix, buf.Bytes()[:buf.Len()-700])
	}
	f.Add("00", rawTar([2]string{"objects/00/../../x", "x"}))
	f.Fuzz(func(t *testing.T, prefix string, data []byte) {
		got := map[digest.Digest][]byte{}
		b := Bucket{Prefix: prefix}
		err := ReadBucket(bytes.NewReader(data), prefix, func(d digest.Digest, size int64, r io.Reader) error {
			body, err := io.ReadAll(r)
			if err != nil {
				return err
			}
			got[d] = body
			b.Objects = append(b.Objects, Object{Digest: d, Size: size})
			return nil
		})
		if err != nil {
			return
		}
		for d, body := range got {
			if digest.Of(body) != d {
				t.Fatalf("accepted %s with content hashing to %s", d, digest.Of(body))
			}
		}
		var buf bytes.Buffer
		if _, err := WriteBucket(&buf, b, memOpener(got)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), data) {
			t.Fatalf("accepted a tar that is not the canonical one (%d bytes, canonical %d)", len(data), buf.Len())
		}
	})
}
