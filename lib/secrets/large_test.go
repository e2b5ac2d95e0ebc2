package secrets

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctx-tools/ctx/internal/secrettest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/store"
)

// logText returns n bytes of text like a tool's output: log lines with
// key=value pairs, paths and URLs, code, prose. Every line holds one of
// the characters the generic rule needs, the worst case for it.
func logText(n int) string {
	r := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields("the user request service config token key value path build test cache store object pack step tool output error warning info debug deploy release module package import func return")
	var b strings.Builder
	b.Grow(n + 256)
	for i := 0; b.Len() < n; i++ {
		w := func() string { return words[r.IntN(len(words))] }
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "2026-04-01T10:%02d:%02dZ INFO %s=%s path=/v1/%s/%d status=%d took=%dms\n", i%60, r.IntN(60), w(), w(), w(), r.IntN(1e6), 200+r.IntN(300), r.IntN(900))
		case 1:
			fmt.Fprintf(&b, "\tif err := %s.%s(ctx, %q); err != nil { return fmt.Errorf(\"%s: %%w\", err) }\n", w(), w(), w(), w())
		case 2:
			fmt.Fprintf(&b, "The %s of the %s is read from https://%s.example.com/%s?%s=%d, then the %s.\n", w(), w(), w(), w(), w(), r.IntN(100), w())
		default:
			fmt.Fprintf(&b, "%s_%s: %s-%s-%d\n", w(), w(), w(), w(), r.IntN(1e4))
		}
	}
	return b.String()[:n]
}

// TestChunks: the chunks of a large text cover it, each within its
// bound, overlapping so that a secret across a cut is found whole, with
// its line in the whole text.
func TestChunks(t *testing.T) {
	t.Parallel()
	text := logText(3 << 20)
	cs := chunks(text)
	if len(cs) < 5 {
		t.Fatalf("%d chunks of %d bytes", len(cs), len(text))
	}
	if !strings.HasPrefix(text, cs[0]) || !strings.HasSuffix(text, cs[len(cs)-1]) {
		t.Error("the chunks do not begin and end the text")
	}
	for i, c := range cs {
		if len(c) > chunkSize+chunkPeek {
			t.Errorf("chunk %d is %d bytes", i, len(c))
		}
		if i > 0 && !strings.Contains(cs[i-1], c[:chunkOverlap/2]) {
			t.Errorf("chunk %d does not overlap the one before", i)
		}
	}
	pem := secrettest.ByName(secrettest.Corpus(3), "pem")
	cut := len(cs[0]) - len(pem)/2
	planted := text[:cut] + "\n" + pem + "\n" + text[cut:]
	sc := newScanner(t)
	fs, err := sc.ScanText(planted, "big.log")
	if err != nil {
		t.Fatal(err)
	}
	line := 2 + strings.Count(text[:cut], "\n")
	found := false
	for _, f := range fs {
		if f.Rule == "private-key" && f.Line == line {
			found = true
		}
	}
	if !found {
		t.Errorf("a private key across a chunk cut at line %d: not found; findings %+v", line, fs)
	}
}

// TestBinary: a binary object (NUL bytes, bytes not UTF-8) is scanned
// for the printable text it holds: a key in it is found, and counted as
// binary; a text is not.
func TestBinary(t *testing.T) {
	t.Parallel()
	aws := secrettest.ByName(secrettest.Corpus(3), "aws")
	r := rand.New(rand.NewPCG(1, 2))
	bin := make([]byte, 1<<20)
	for i := range bin {
		bin[i] = byte(r.IntN(256))
	}
	copy(bin[700_000:], "\x00AWS_ACCESS_KEY_ID="+aws+"\x00")
	for _, tc := range []struct {
		text string
		want bool
	}{
		{string(bin), true},
		{"plain text\n", false},
		{"é" + strings.Repeat("x", sniffSize-2) + "é more", false}, // a character cut at the sniffed end
		{"a\x00b", true},
		{"\xff\xfe", true},
	} {
		if got := isBinary(tc.text); got != tc.want {
			t.Errorf("isBinary(%.20q…) = %v", tc.text, got)
		}
	}
	st, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l, err := execlog.Parse([]byte(`{"model":{"identifier":"m"},"steps":[],"inputs":[{"name":"app.bin","content_base64":"`+base64.StdEncoding.EncodeToString(bin)+`"},{"name":"a.txt","content":"hello"}]}`), execlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := l.Pack(st)
	if err != nil {
		t.Fatal(err)
	}
	fs, stats, err := newScanner(t).ScanPack(st, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Binary != 1 {
		t.Errorf("%d binary objects, want 1", stats.Binary)
	}
	if len(fs) != 1 || fs[0].Rule != "aws-access-token" || fs[0].Path != "inputs[0].content" {
		t.Errorf("findings %+v, want the access key in inputs[0].content", fs)
	}
}

// TestLargeMemory: scanning a 64 MB text object keeps the heap within
// 256 MB (the object's own 64 MB included). The text is prose, which the
// rules pass over quickly; what a text costs in memory does not depend
// on which rules match in it.
func TestLargeMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("scans 64 MB")
	}
	st, _, err := store.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	prose := "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\n"
	d, _, err := st.Put([]byte(strings.Repeat(prose, (64<<20)/len(prose)+1)))
	if err != nil {
		t.Fatal(err)
	}
	l, err := execlog.Parse([]byte(`{"model":{"identifier":"m"},"steps":[],"inputs":[{"name":"big.log","content_ref":"`+d.String()+`"}]}`), execlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := l.Pack(st)
	if err != nil {
		t.Fatal(err)
	}
	sc := newScanner(t)
	runtime.GC()
	stop := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var max uint64
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			max = maxOf(max, ms.HeapInuse)
			select {
			case <-stop:
				peak <- max
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	_, stats, err := sc.ScanPack(st, m, nil)
	close(stop)
	p := <-peak
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("scanned %d bytes, peak heap %d MB", stats.Bytes, p>>20)
	if p > 256<<20 {
		t.Errorf("peak heap %d MB scanning a 64 MB object, want at most 256", p>>20)
	}
}

func maxOf(a, b uint64) uint64 { return max(a, b) }
