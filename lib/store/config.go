package store

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// UpdateConfig rewrites config.json with what update makes of its
// current bytes, under the store's lock so that two updates never lose
// one another's change. The new bytes must still be a config this ctx
// reads (version 1, sha256); they replace the old ones whole, through a
// temporary file in tmp/, or not at all. update returning nil bytes
// leaves config.json as it is.
func (s *Store) UpdateConfig(update func(old []byte) ([]byte, error)) error {
	name := filepath.Join(s.root, "config.json")
	unlock, err := lockDir(s.root)
	if err != nil {
		return fmt.Errorf("updating %s: %w", name, err)
	}
	defer unlock()
	old, err := ReadFile(name, MaxConfigSize)
	if err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	b, err := update(old)
	if err != nil || b == nil {
		return err
	}
	c, err := parseConfig(b)
	if err != nil {
		return fmt.Errorf("updating %s: %w", name, err)
	}
	if len(b) > MaxConfigSize {
		return fmt.Errorf("updating %s: %d bytes, more than the %d a store's config may hold", name, len(b), MaxConfigSize)
	}
	if err := (WriteOptions{Perm: 0o644, TmpDir: filepath.Join(s.root, "tmp"), TmpPrefix: "config-"}).WriteFile(name, b); err != nil {
		return fmt.Errorf("updating %s: %w", name, err)
	}
	s.config = c
	return nil
}

// parseConfig reads config.json's bytes and checks that this ctx can use
// the store they describe.
func parseConfig(b []byte) (Config, error) {
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, err
	}
	if c.Version != 1 || c.Hash != "sha256" {
		return Config{}, fmt.Errorf("unsupported store (version %d, hash %q; this ctx reads version 1, sha256)", c.Version, c.Hash)
	}
	c.Raw = b
	return c, nil
}
