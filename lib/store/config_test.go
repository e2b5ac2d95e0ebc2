package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestUpdateConfig(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	name := s.Path("config.json")
	want := []byte(`{"hash":"sha256","tools":{"x":1},"version":1}` + "\n")
	if err := s.UpdateConfig(func(old []byte) ([]byte, error) {
		if !bytes.Equal(old, defaultConfig) {
			t.Errorf("old = %q, want %q", old, defaultConfig)
		}
		return want, nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(name); !bytes.Equal(got, want) {
		t.Errorf("config.json = %q, want %q", got, want)
	}
	if got := s.Config().Raw; !bytes.Equal(got, want) {
		t.Errorf("Config().Raw = %q, want %q", got, want)
	}
	if fi, err := os.Stat(name); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("config.json mode = %v, %v", fi, err)
	}
	if ents, _ := os.ReadDir(s.Path("tmp")); len(ents) != 0 {
		t.Errorf("tmp/ holds %d entries after the update", len(ents))
	}

	// A refused update, or one that would make the store unreadable,
	// leaves config.json as it was.
	for _, tc := range []struct {
		update  func([]byte) ([]byte, error)
		wantErr string
	}{
		{func([]byte) ([]byte, error) { return nil, errors.New("no") }, "no"},
		{func([]byte) ([]byte, error) { return []byte(`{"version":2,"hash":"sha256"}`), nil }, "unsupported store"},
		{func([]byte) ([]byte, error) { return []byte(`{"version":1`), nil }, "unexpected end"},
		{func([]byte) ([]byte, error) { return nil, nil }, ""},
	} {
		err := s.UpdateConfig(tc.update)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("UpdateConfig = %v, want %q", err, tc.wantErr)
		}
		if got, _ := os.ReadFile(name); !bytes.Equal(got, want) {
			t.Errorf("after %q: config.json = %q, want it unchanged", tc.wantErr, got)
		}
	}
}

// Concurrent updates from several processes' worth of stores each see the
// others' changes: none is lost.
func TestUpdateConfigConcurrent(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".ctx")
	if _, _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(dir)
			if err != nil {
				t.Error(err)
				return
			}
			err = s.UpdateConfig(func(old []byte) ([]byte, error) {
				return fmt.Appendf(bytes.TrimRight(bytes.TrimSuffix(bytes.TrimSpace(old), []byte("}")), " "), `,"m%d":true}`, i), nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, _ := os.ReadFile(filepath.Join(dir, "config.json"))
	for i := range n {
		if !bytes.Contains(got, fmt.Appendf(nil, `"m%d":true`, i)) {
			t.Errorf("config.json lost m%d: %s", i, got)
		}
	}
}
