package remote

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/ctx-tools/ctx/lib/digest"
)

func memOpener(objs map[digest.Digest][]byte) Opener {
	return func(d digest.Digest) (io.ReadCloser, error) {
		b, ok := objs[d]
		if !ok {
			return nil, errors.New("no such object")
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
}

func TestPlan(t *testing.T) {
	t.Parallel()
	var objs []Object
	for i := range 250 {
		objs = append(objs, Object{Digest: digest.Of([]byte(fmt.Sprint("big", i))), Size: LargeObject + int64(i%3)})
	}
	for i := range 1000 {
		objs = append(objs, Object{Digest: digest.Of([]byte(fmt.Sprint("small", i))), Size: int64(i % 100)})
	}
	l, err := Plan(objs)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Large) != MaxObjectLayers {
		t.Fatalf("%d own layers, want %d", len(l.Large), MaxObjectLayers)
	}
	if n := len(l.Large) + len(l.Buckets); n >= 500 {
		t.Errorf("%d layers: not under ECR's 500", n)
	}
	// The largest get own layers: every big object left in a bucket is no
	// larger than the smallest with its own layer.
	minOwn := int64(1 << 62)
	for i, o := range l.Large {
		minOwn = min(minOwn, o.Size)
		if i > 0 && bytes.Compare(l.Large[i-1].Digest[:], o.Digest[:]) >= 0 {
			t.Errorf("own layers not sorted by hash at %d", i)
		}
	}
	inBuckets := 0
	for i, b := range l.Buckets {
		if i > 0 && l.Buckets[i-1].Prefix >= b.Prefix {
			t.Errorf("buckets not sorted at %d", i)
		}
		for j, o := range b.Objects {
			inBuckets++
			if o.Digest.Hex()[:2] != b.Prefix {
				t.Errorf("object %s in bucket %s", o.Digest, b.Prefix)
			}
			if j > 0 && bytes.Compare(b.Objects[j-1].Digest[:], o.Digest[:]) >= 0 {
				t.Errorf("bucket %s not sorted", b.Prefix)
			}
			if o.Size >= LargeObject && o.Size > minOwn {
				t.Errorf("object of %d bytes in a bucket while one of %d has its own layer", o.Size, minOwn)
			}
		}
	}
	if inBuckets+len(l.Large) != len(objs) {
		t.Errorf("%d objects laid out, want %d", inBuckets+len(l.Large), len(objs))
	}
	// A pure function: the order of the input does not matter.
	rev := make([]Object, len(objs))
	for i, o := range objs {
		rev[len(objs)-1-i] = o
	}
	l2, _ := Plan(rev)
	if fmt.Sprint(l) != fmt.Sprint(l2) {
		t.Error("Plan depends on the order of its input")
	}
	if _, err := Plan([]Object{objs[0], objs[0]}); err == nil {
		t.Error("Plan accepted an object twice")
	}
}

// TestBucketTar: the bucket tar is a plain USTAR archive any tar reads,
// with fixed metadata, and ReadBucket reads back exactly what
// WriteBucket wrote.
func TestBucketTar(t *testing.T) {
	t.Parallel()
	objs := map[digest.Digest][]byte{}
	var list []Object
	for _, c := range []string{"", "a", strings.Repeat("x", 511), strings.Repeat("y", 512), strings.Repeat("z", 513)} {
		d := digest.Of([]byte(c))
		objs[d] = []byte(c)
		list = append(list, Object{Digest: d, Size: int64(len(c))})
	}
	// Put them all in one bucket regardless of prefix, as ReadBucket
	// checks the prefix: use a bucket per prefix instead.
	l, err := Plan(list)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range l.Buckets {
		var buf bytes.Buffer
		n, err := WriteBucket(&buf, b, memOpener(objs))
		if err != nil {
			t.Fatal(err)
		}
		if n != b.Size() || int64(buf.Len()) != n {
			t.Errorf("bucket %s: wrote %d bytes, Size says %d", b.Prefix, n, b.Size())
		}
		tr := tar.NewReader(bytes.NewReader(buf.Bytes()))
		for _, o := range b.Objects {
			h, err := tr.Next()
			if err != nil {
				t.Fatal(err)
			}
			if h.Name != objectName(o.Digest) || h.Size != o.Size || h.Mode != 0o444 || h.ModTime.Unix() != 0 ||
				h.Uid != 0 || h.Gid != 0 || h.Typeflag != tar.TypeReg || h.Format != tar.FormatUSTAR {
				t.Errorf("header %+v", h)
			}
			body, _ := io.ReadAll(tr)
			if !bytes.Equal(body, objs[o.Digest]) {
				t.Errorf("entry %s: wrong content", h.Name)
			}
		}
		if _, err := tr.Next(); err != io.EOF {
			t.Errorf("after the entries: %v", err)
		}
		var got []digest.Digest
		err = ReadBucket(bytes.NewReader(buf.Bytes()), b.Prefix, func(d digest.Digest, size int64, r io.Reader) error {
			body, _ := io.ReadAll(r)
			if !bytes.Equal(body, objs[d]) || int64(len(body)) != size {
				t.Errorf("ReadBucket %s: wrong content", d)
			}
			got = append(got, d)
			return nil
		})
		if err != nil || len(got) != len(b.Objects) {
			t.Errorf("ReadBucket: %v, %d entries", err, len(got))
		}
		// Nothing may follow the archive.
		if err := ReadBucket(io.MultiReader(bytes.NewReader(buf.Bytes()), strings.NewReader("x")), b.Prefix, nil); !errors.Is(err, ErrBadLayer) {
			t.Errorf("trailing data: %v", err)
		}
	}
}

// TestManifestPinned pins the layout with the test vector of
// docs/oci-layout.md: a pack's OCI manifest must not change from one ctx
// (or Go) version to the next, or every pushed pack would get a new
// digest. TestBucketTar checks the tar is what any tar reader expects.
func TestManifestPinned(t *testing.T) {
	t.Parallel()
	objs := map[digest.Digest][]byte{}
	var list []Object
	for _, c := range []string{"", "hello\n", `{"a":1}`} {
		objs[digest.Of([]byte(c))] = []byte(c)
		list = append(list, Object{Digest: digest.Of([]byte(c)), Size: int64(len(c))})
	}
	l, err := Plan(list)
	if err != nil {
		t.Fatal(err)
	}
	var layers []ocispec.Descriptor
	var got []string
	for _, b := range l.Buckets {
		var buf bytes.Buffer
		if _, err := WriteBucket(&buf, b, memOpener(objs)); err != nil {
			t.Fatal(err)
		}
		layers = append(layers, BucketDescriptor(b, digest.Of(buf.Bytes())))
		got = append(got, b.Title()+" "+digest.Of(buf.Bytes()).Hex())
	}
	config := []byte(`{"version":"0.1"}`)
	mb, desc, err := EncodeManifest(ConfigDescriptor(digest.Of(config), int64(len(config))), layers, "2026-02-10T09:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	if want := "sha256:" + digest.Of(mb).Hex(); desc.Digest.String() != want || desc.Size != int64(len(mb)) {
		t.Errorf("descriptor %+v does not describe the bytes (%s)", desc, want)
	}
	got = append(got, "manifest "+desc.Digest.Encoded())
	// Computed independently with Python's tarfile (USTAR_FORMAT, the
	// fixed metadata; its archive cut after the two zero blocks) and
	// json.dumps(sort_keys=True, separators=(",", ":")).
	want := []string{
		"objects/01 ecedcf95623f8c47117195cd7e52a6ff4276089e3577dba998709f1d79b17d46",
		"objects/58 0731f6fc355ce906b6246b47ea7aa02e04af91a73c442cc20fb84eb86bdcb38a",
		"objects/e3 b0e483e1d8b9fa13032cf0dde195893f0e138df397a247ed06d24495b2a3d995",
		"manifest 96447970d74075425c34f5d989ac22f2144057558613a096012a303ff913f1f3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("layout changed:\n%s\nmanifest:\n%s", strings.Join(got, "\n"), mb)
	}
}
