package importtest

import (
	"bytes"
	"reflect"
	"testing"
)

// An Imported is one import's outcome: the log, the report (R, the
// importer's Report) and the error's text.
type Imported[R any] struct {
	Out []byte
	Rep R
	Err string
}

// ImportedOf is the outcome of an import that returned out, rep and err.
func ImportedOf[R any](out []byte, rep R, err error) Imported[R] {
	r := Imported[R]{Out: out, Rep: rep}
	if err != nil {
		r.Err = err.Error()
	}
	return r
}

// SameImport fails unless got is want, their reports once unresumed
// (what a resumed import reports that a full one does not, cleared).
func SameImport[R any](t testing.TB, what string, got, want Imported[R], unresumed func(*R)) {
	t.Helper()
	unresumed(&got.Rep)
	unresumed(&want.Rep)
	if got.Err != want.Err {
		t.Fatalf("%s: error %q, a full import's %q", what, got.Err, want.Err)
	}
	if !bytes.Equal(got.Out, want.Out) {
		t.Fatalf("%s: the log differs from a full import's\n%s", what, firstDiff(got.Out, want.Out))
	}
	if !reflect.DeepEqual(got.Rep, want.Rep) {
		t.Fatalf("%s: report %+v, a full import's %+v", what, got.Rep, want.Rep)
	}
}

// firstDiff shows where two logs part.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-120)
	return "resumed: …" + string(a[from:min(len(a), i+120)]) + "\nfull:    …" + string(b[from:min(len(b), i+120)])
}

// LineEnds returns the offsets just after each line break of data.
func LineEnds(data []byte) []int {
	var ends []int
	for i, c := range data {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	return ends
}
