package snap

import (
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// version names the encoding. Change it when the encoding of any type
// changes, so that checkpoints in the old encoding are not decoded.
const version = "snap/1"

var fingerprints sync.Map // reflect.Type → string

func fingerprint(t reflect.Type) string {
	if f, ok := fingerprints.Load(t); ok {
		return f.(string)
	}
	var b strings.Builder
	b.WriteString(version)
	b.WriteByte('\n')
	describe(&b, t, map[reflect.Type]int{})
	sum := sha256.Sum256([]byte(b.String()))
	f := hex.EncodeToString(sum[:])
	fingerprints.Store(t, f)
	return f
}

// describe writes the shape of t: Go's own type syntax without type names,
// a type met before written as #n, n counting types in the order they
// are first met (which is what makes recursive types finite). Type names
// are left out: renaming a type does not change its encoding.
func describe(b *strings.Builder, t reflect.Type, seen map[reflect.Type]int) {
	if n, ok := seen[t]; ok {
		b.WriteByte('#')
		b.WriteString(strconv.Itoa(n))
		return
	}
	seen[t] = len(seen)
	switch t.Kind() {
	case reflect.Slice:
		b.WriteString("[]")
		describe(b, t.Elem(), seen)
	case reflect.Array:
		b.WriteString("[" + strconv.Itoa(t.Len()) + "]")
		describe(b, t.Elem(), seen)
	case reflect.Map:
		b.WriteString("map[")
		describe(b, t.Key(), seen)
		b.WriteString("]")
		describe(b, t.Elem(), seen)
	case reflect.Pointer:
		b.WriteString("*")
		describe(b, t.Elem(), seen)
	case reflect.Struct:
		if t == timeType {
			b.WriteString("time.Time")
			return
		}
		b.WriteString("struct{")
		for i := range t.NumField() {
			f := t.Field(i)
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(f.Name)
			b.WriteByte(' ')
			describe(b, f.Type, seen)
		}
		b.WriteString("}")
	case reflect.Interface:
		b.WriteString("interface")
	case reflect.Func:
		b.WriteString("func")
	case reflect.Chan:
		b.WriteString("chan")
	default:
		b.WriteString(t.Kind().String())
	}
}
