package remote

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// hostileImage is a pack's image as plain parts, to be altered.
type hostileImage struct {
	pack    *manifest.Manifest
	config  []byte
	buckets []Bucket
	tars    [][]byte
	objects map[digest.Digest][]byte
}

func partsOf(t *testing.T, m *manifest.Manifest, s interface {
	Get(digest.Digest) ([]byte, error)
}, img *Image) *hostileImage {
	t.Helper()
	h := &hostileImage{pack: m, config: img.Config, buckets: img.Layout.Buckets, objects: map[digest.Digest][]byte{}}
	open := func(d digest.Digest) (io.ReadCloser, error) {
		b, err := s.Get(d)
		return io.NopCloser(bytes.NewReader(b)), err
	}
	for _, b := range img.Layout.Buckets {
		var buf bytes.Buffer
		if _, err := WriteBucket(&buf, b, open); err != nil {
			t.Fatal(err)
		}
		h.tars = append(h.tars, buf.Bytes())
		for _, o := range b.Objects {
			h.objects[o.Digest], _ = s.Get(o.Digest)
		}
	}
	return h
}

// rawTar builds a tar from entries with the canonical header of any name.
func rawTar(entries ...[2]string) []byte {
	var buf bytes.Buffer
	for _, e := range entries {
		h := tarHeader(e[0], int64(len(e[1])))
		buf.Write(h[:])
		buf.WriteString(e[1])
		buf.Write(make([]byte, padded(int64(len(e[1])))-int64(len(e[1]))))
	}
	buf.Write(make([]byte, 2*blockSize))
	return buf.Bytes()
}

// TestPullRejectsHostileContent: each broken or lying image is an error
// that leaves the pulling store exactly as it was, whether downloads are
// held in memory or staged in the store's tmp/.
func TestPullRejectsHostileContent(t *testing.T) {
	t.Run("held", testPullRejectsHostileContent)
	t.Run("staged", func(t *testing.T) {
		defer func(old int64) { maxHeld = old }(maxHeld)
		maxHeld = 0
		testPullRejectsHostileContent(t)
	})
}

func testPullRejectsHostileContent(t *testing.T) {
	reg := newRegistry(t)
	a := newStore(t)
	m := makePack(t, a, "victim", sizes(60, 30), digest.Digest{})
	other := makePack(t, a, "other", sizes(5, 30), digest.Digest{})
	img, err := Build(ctx, a, m.Hash, 2)
	if err != nil {
		t.Fatal(err)
	}
	parts := partsOf(t, m, a, img)
	rp := reg.raw(t, "evil")
	c := reg.client(t, "evil")

	// push plants an image: config bytes, then bucket tars titled by
	// prefix; edit may change the manifest. It is tagged by tag.
	push := func(tag string, config []byte, titles []string, tars [][]byte, edit func(*ocispec.Manifest)) {
		cd := plant(t, rp, ConfigMediaType, "", config)
		var layers []ocispec.Descriptor
		for i, tb := range tars {
			layers = append(layers, plant(t, rp, BucketMediaType, titles[i], tb))
		}
		om := ocispec.Manifest{
			Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
			ArtifactType: ArtifactType, Config: cd, Layers: layers,
			Annotations: map[string]string{ocispec.AnnotationCreated: m.Created},
		}
		if edit != nil {
			edit(&om)
		}
		plantManifest(t, rp, om, tag)
	}
	titles := func() []string {
		var out []string
		for _, b := range parts.buckets {
			out = append(out, b.Title())
		}
		return out
	}
	replace := func(i int, tb []byte) [][]byte {
		out := append([][]byte(nil), parts.tars...)
		out[i] = tb
		return out
	}
	first := parts.buckets[0]
	o0 := first.Objects[0]
	hex0 := o0.Digest.Hex()
	tag := m.Hash.Hex()

	cases := []struct {
		name  string
		plant func()
		ref   string
		want  string
	}{
		{"traversal name", func() {
			evil := rawTar([2]string{"objects/" + hex0[:2] + "/../../../../escape", "x"})
			push(tag, parts.config, titles(), replace(0, evil), nil)
		}, tag, "is not objects/"},
		{"absolute name", func() {
			evil := rawTar([2]string{"/etc/passwd", "x"})
			push(tag, parts.config, titles(), replace(0, evil), nil)
		}, tag, "is not objects/"},
		{"wrong hash", func() {
			var entries [][2]string
			for _, o := range first.Objects {
				body := string(parts.objects[o.Digest])
				if o.Digest == o0.Digest {
					body = strings.ToUpper(body)
				}
				entries = append(entries, [2]string{objectName(o.Digest), body})
			}
			push(tag, parts.config, titles(), replace(0, rawTar(entries...)), nil)
		}, tag, "hashes to"},
		{"truncated tar", func() {
			tb := parts.tars[0]
			push(tag, parts.config, titles(), replace(0, tb[:len(tb)-blockSize-100]), nil)
		}, tag, "truncated"},
		{"not canonical tar header", func() {
			tb := bytes.Clone(parts.tars[0])
			copy(tb[100:108], "0000644\x00") // mode
			push(tag, parts.config, titles(), replace(0, tb), nil)
		}, tag, "canonical"},
		{"object missing from its bucket", func() {
			var entries [][2]string
			for _, o := range first.Objects[1:] {
				entries = append(entries, [2]string{objectName(o.Digest), string(parts.objects[o.Digest])})
			}
			tb := rawTar(entries...)
			if len(first.Objects) == 1 {
				tb = rawTar()
			}
			push(tag, parts.config, titles(), replace(0, tb), nil)
		}, tag, "missing from layer"},
		{"object the pack does not reference", func() {
			// Smuggle an object whose hash falls in the first bucket.
			var extra []byte
			for i := 0; ; i++ {
				extra = []byte(fmt.Sprintf("smuggled %d", i))
				if digest.Of(extra).Hex()[:2] == first.Prefix {
					break
				}
			}
			entries := [][2]string{{objectName(digest.Of(extra)), string(extra)}}
			for _, o := range first.Objects {
				entries = append(entries, [2]string{objectName(o.Digest), string(parts.objects[o.Digest])})
			}
			slices.SortFunc(entries, func(x, y [2]string) int { return strings.Compare(x[0], y[0]) })
			push(tag, parts.config, titles(), replace(0, rawTar(entries...)), nil)
		}, tag, "does not reference"},
		{"bucket titled for another prefix", func() {
			tl := titles()
			tl[0], tl[1] = tl[1], tl[0]
			push(tag, parts.config, tl, parts.tars, nil)
		}, tag, "is not objects/"},
		{"config of another pack under this hash", func() {
			oc, _ := a.Get(other.Hash)
			push(tag, oc, titles(), parts.tars, func(om *ocispec.Manifest) {})
		}, tag, "not the pack its tag names"},
		{"config not canonical", func() {
			cfg := append(bytes.Clone(parts.config[:len(parts.config)-1]), ' ', '}')
			push(digest.Of(cfg).Hex(), cfg, titles(), parts.tars, nil)
		}, digest.Of(append(bytes.Clone(parts.config[:len(parts.config)-1]), ' ', '}')).Hex(), "not a canonical pack manifest"},
		{"wrong artifact type", func() {
			push(tag, parts.config, titles(), parts.tars, func(om *ocispec.Manifest) { om.ArtifactType = "application/vnd.other" })
		}, tag, "not a ctx pack"},
		{"created annotation is not the pack's", func() {
			push(tag, parts.config, titles(), parts.tars, func(om *ocispec.Manifest) {
				om.Annotations[ocispec.AnnotationCreated] = "2030-01-01T00:00:00Z"
			})
		}, tag, "created annotation"},
		{"bucket listed twice", func() {
			push(tag, parts.config, append(titles(), titles()[0]), append(parts.tars, parts.tars[0]), nil)
		}, tag, "twice"},
		{"unknown layer type", func() {
			push(tag, parts.config, titles(), parts.tars, func(om *ocispec.Manifest) { om.Layers[0].MediaType = "application/x-sh" })
		}, tag, "unknown mediaType"},
		{"object layer under another name", func() {
			push(tag, parts.config, titles(), parts.tars, func(om *ocispec.Manifest) {
				om.Layers[0].MediaType = ObjectMediaType
			})
		}, tag, "does not name its digest"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newStore(t)
			makePack(t, b, "bystander", sizes(3, 10), digest.Digest{})
			before := snapshot(t, b)
			tc.plant()
			_, err := c.Pull(ctx, b, tc.ref, PullOptions{})
			if err == nil {
				t.Fatal("pull succeeded")
			}
			if !errors.Is(err, ErrBadLayer) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q: want ErrBadLayer mentioning %q", err, tc.want)
			}
			if after := snapshot(t, b); after != before {
				t.Errorf("store changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}

	// A registry that serves other bytes than the digest it names.
	t.Run("altered blob", func(t *testing.T) {
		push(tag, parts.config, titles(), parts.tars, nil)
		b := newStore(t)
		before := snapshot(t, b)
		reg.c.alter = func(k string, resp *http.Response) {
			if k == "GET blob" && resp.StatusCode == 200 && resp.ContentLength > blockSize {
				body, _ := io.ReadAll(resp.Body)
				body[blockSize+1] ^= 1
				resp.Body = io.NopCloser(bytes.NewReader(body))
			}
		}
		defer func() { reg.c.alter = nil }()
		_, err := c.Pull(ctx, b, tag, PullOptions{})
		if !errors.Is(err, ErrBadLayer) || !strings.Contains(err.Error(), "does not hash to its digest") {
			t.Errorf("error %v", err)
		}
		if after := snapshot(t, b); after != before {
			t.Errorf("store changed")
		}
	})

	// After all that, the genuine image pulls fine.
	t.Run("genuine", func(t *testing.T) {
		if _, err := c.Push(ctx, a, m.Hash, PushOptions{}); err != nil {
			t.Fatal(err)
		}
		b := newStore(t)
		if _, err := c.Pull(ctx, b, tag, PullOptions{}); err != nil {
			t.Fatal(err)
		}
		checkSame(t, a, b, m.Hash)
	})
}
