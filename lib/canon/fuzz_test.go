package canon

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzCanonicalize checks that canonical output is stable (idempotent),
// valid JSON equal in meaning to the input, and that the input is untouched.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x"]}`, `1e300`, `"\u00e9\ud83d\ude02"`, `[9007199254740993]`, `{"a":1,"a":2}`, `-0.0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		orig := bytes.Clone(in)
		out, err := Canonicalize(in)
		if !bytes.Equal(in, orig) {
			t.Fatal("input modified")
		}
		if err != nil {
			return
		}
		again, err := Canonicalize(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %s -> %s (%v)", out, again, err)
		}
		var a, b any
		if json.Unmarshal(in, &a) != nil || json.Unmarshal(out, &b) != nil {
			t.Fatalf("valid per canon but not per encoding/json: %q", in)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("meaning changed: %q -> %s", in, out)
		}
	})
}
