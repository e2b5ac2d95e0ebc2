package digest

import (
	"encoding/json"
	"strings"
	"testing"
)

const emptyHex = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

func TestOf(t *testing.T) {
	t.Parallel()
	if got := Of(nil).Hex(); got != emptyHex {
		t.Fatalf("Of(nil) = %s, want %s", got, emptyHex)
	}
	d, n, err := OfReader(strings.NewReader("abc"))
	if err != nil || n != 3 || d != Of([]byte("abc")) {
		t.Fatalf("OfReader = %v, %d, %v", d, n, err)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	upper := strings.ToUpper(emptyHex)
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"sha256:" + emptyHex, true},
		{"ctx://" + emptyHex, true},
		{emptyHex, true},
		{upper, true},
		{"sha256:" + emptyHex[:63], false},
		{"sha256:" + emptyHex + "0", false},
		{"sha512:" + emptyHex, false},
		{"sha256:" + emptyHex[:63] + "g", false},
		{"", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			d, err := Parse(tc.in)
			if (err == nil) != tc.ok {
				t.Fatalf("Parse(%q) error = %v, want ok=%v", tc.in, err, tc.ok)
			}
			if tc.ok && d.Hex() != emptyHex {
				t.Fatalf("Parse(%q) = %s", tc.in, d)
			}
		})
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	d := Of(nil)
	b, err := json.Marshal(struct{ D Digest }{d})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"D":"sha256:` + emptyHex + `"}`; string(b) != want {
		t.Fatalf("marshal = %s, want %s", b, want)
	}
	var v struct{ D Digest }
	if err := json.Unmarshal(b, &v); err != nil || v.D != d {
		t.Fatalf("unmarshal = %v, %v", v.D, err)
	}
	if err := json.Unmarshal([]byte(`{"D":"`+emptyHex+`"}`), &v); err == nil {
		t.Fatal("unmarshal accepted a digest without the sha256: prefix")
	}
	if err := json.Unmarshal([]byte(`{"D":"ctx://`+emptyHex+`"}`), &v); err == nil {
		t.Fatal("unmarshal accepted a ctx:// digest")
	}
	// As documented: uppercase hex names the same digest.
	if err := json.Unmarshal([]byte(`{"D":"sha256:`+strings.ToUpper(emptyHex)+`"}`), &v); err != nil || v.D != d {
		t.Fatalf("unmarshal of uppercase hex = %v, %v", v.D, err)
	}
	if _, err := json.Marshal(struct{ D Digest }{}); err == nil {
		t.Fatal("marshal accepted a zero digest")
	}
	if d.URI() != "ctx://"+emptyHex || d.Short() != emptyHex[:12] {
		t.Fatalf("URI/Short wrong: %s %s", d.URI(), d.Short())
	}
}
