package store

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/digest"
)

// GetMapped answers as Get does, and its bytes are the process's own to
// write: the object's file does not change.
func TestGetMapped(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	content := []byte(strings.Repeat("mapped bytes ", 1000))
	d, _, _ := s.Put(content)
	empty, _, _ := s.Put(nil)
	tampered, _, _ := s.Put([]byte("original"))
	os.Chmod(s.ObjectPath(tampered), 0o644)
	os.WriteFile(s.ObjectPath(tampered), []byte("tampered"), 0o444)
	missing := digest.Of([]byte("never stored"))

	b, err := s.GetMapped(d)
	if err != nil || !bytes.Equal(b, content) {
		t.Fatalf("GetMapped = %.40q…, %v", b, err)
	}
	b[0] = 'M'
	if again, err := s.Get(d); err != nil || !bytes.Equal(again, content) {
		t.Errorf("a write to the mapped bytes reached the object: %.40q…, %v", again, err)
	}
	if b, err := s.GetMapped(empty); err != nil || b == nil || len(b) != 0 {
		t.Errorf("GetMapped(empty) = %#v, %v; want empty, nil", b, err)
	}
	if _, err := s.GetMapped(tampered); !errors.Is(err, ErrCorrupt) {
		t.Errorf("GetMapped(tampered) = %v, want ErrCorrupt", err)
	}
	if _, err := s.GetMapped(missing); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), missing.String()) {
		t.Errorf("GetMapped(missing) = %v, want ErrNotFound naming the object", err)
	}
}
