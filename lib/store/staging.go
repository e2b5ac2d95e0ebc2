package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StaleStaging is the age from which a staging directory in tmp/ that no
// running command holds is removed by the next command that stages: its
// maker died (kill -9, a crash) before cleaning up. The age only covers
// the instant between making a directory and locking it.
const StaleStaging = time.Minute

// staleTemp is the age from which a store's own temporary file left in
// tmp/ (where the system has no unnamed files) is removed as garbage.
const staleTemp = 24 * time.Hour

// Staging makes a directory in the store's tmp/, named prefix followed by
// random characters, for a command's downloads before they are verified
// and stored (ctx-pull). The directory is locked while the command runs;
// release removes it. Making one first removes the staging directories
// of commands that died (older than StaleStaging, not locked), so that
// what a killed command left never grows from run to run. tmp/ itself is
// never removed: another command may be using it.
func (s *Store) Staging(prefix string) (dir string, release func(), err error) {
	tmp := filepath.Join(s.root, "tmp")
	s.cleanStale(tmp)
	// tmp/ may be removed by hand ("safe to delete") between the two
	// calls; once more is enough.
	for range 2 {
		if err = s.storeDir(tmp); err != nil {
			return "", nil, err
		}
		dir, err = os.MkdirTemp(tmp, prefix)
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return "", nil, fmt.Errorf("creating a staging directory in %s: %w", tmp, err)
	}
	unlock, ok := tryLockDir(dir)
	if !ok {
		os.Remove(dir)
		return "", nil, fmt.Errorf("locking staging directory %s", dir)
	}
	return dir, func() {
		os.RemoveAll(dir)
		unlock()
	}, nil
}

// cleanStale removes from tmp what dead commands left: staging
// directories no one holds, older than StaleStaging, and temporary files
// older than staleTemp. Errors are ignored: it is housekeeping.
func (s *Store) cleanStale(tmp string) {
	// Never through a symlink: removing a staging directory removes a
	// whole tree.
	if s.CheckDir("tmp") != nil {
		return
	}
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	now := time.Now()
	minAge := StaleStaging
	if !canLockDirs {
		minAge = staleTemp
	}
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			continue
		}
		age := now.Sub(info.ModTime())
		p := filepath.Join(tmp, e.Name())
		switch {
		case e.IsDir() && age >= minAge:
			if unlock, ok := tryLockDir(p); ok {
				os.RemoveAll(p)
				unlock()
			}
		case e.Type().IsRegular() && age >= staleTemp && (strings.HasPrefix(e.Name(), "obj-") || strings.HasPrefix(e.Name(), "ref-") || strings.HasPrefix(e.Name(), "config-")):
			os.Remove(p)
		}
	}
}
