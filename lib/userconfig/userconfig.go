// Package userconfig reads the user's own ctx configuration: the one file
// on this machine that says what ctx may trust. Its members belong to the
// features that read them ("tools" to ctx-replay, "trusted_keys" to
// ctx-verify); this package owns where the file is and "trusted_stores",
// the stores whose own config.json the user vouches for. A store's
// config.json travels with the store (copied, pulled, checked out), so it
// is never trusted by itself.
//
//	{"tools": {…}, "trusted_keys": […],
//	 "trusted_stores": ["/home/me/src/app/.ctx", "~/work/.ctx"]}
package userconfig

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/found"
	"github.com/ctx-tools/ctx/lib/store"
)

// Path returns where the user's config is: $CTX_CONFIG, else
// ctx/config.json in the user's config directory ($XDG_CONFIG_HOME, else
// ~/.config, on Linux).
func Path() (string, error) {
	if p := os.Getenv("CTX_CONFIG"); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("locating the user config: %w", err)
	}
	return filepath.Join(dir, "ctx", "config.json"), nil
}

// Config is the user's config as read.
type Config struct {
	// Path is the file's path, for messages and for paths relative to it.
	Path string
	// Raw is the file's JSON; nil when there is no such file.
	Raw []byte
	// TrustedStores are the absolute, cleaned store directories listed
	// in "trusted_stores".
	TrustedStores []string
}

// Load reads the config at path (see Path); a missing file is an empty
// config. The file is read as every file ctx finds for itself is
// (lib/found): a regular file, symlinks followed (dotfile managers link
// it), of at most store.MaxConfigSize bytes.
func Load(path string) (*Config, error) {
	c := &Config{Path: path}
	raw, err := found.ReadFile(path, found.Rule{What: "user config", Max: store.MaxConfigSize})
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	var top struct {
		TrustedStores []string `json:"trusted_stores"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	c.Raw = raw
	for i, s := range top.TrustedStores {
		p, err := ExpandHome(s)
		if err == nil && !filepath.IsAbs(p) {
			err = errors.New("not an absolute path")
		}
		if err != nil {
			return nil, fmt.Errorf("%s: trusted_stores[%d] %q: %v", path, i, s, err)
		}
		c.TrustedStores = append(c.TrustedStores, filepath.Clean(p))
	}
	return c, nil
}

// TrustsStore reports whether the user listed s in "trusted_stores", as
// its .ctx directory or the directory holding it.
func (c *Config) TrustsStore(s *store.Store) bool {
	root, err := os.Stat(s.Root())
	if err != nil {
		return false
	}
	for _, dir := range c.TrustedStores {
		for _, d := range []string{dir, filepath.Join(dir, ".ctx")} {
			if fi, err := os.Stat(d); err == nil && os.SameFile(fi, root) {
				return true
			}
		}
	}
	return false
}

// Name names the config in messages.
func (c *Config) Name() string {
	if c == nil || c.Path == "" {
		return "your ctx config"
	}
	return c.Path
}

// ExpandHome replaces a leading "~" or "~/" with the user's home
// directory.
func ExpandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, p[1:]), nil
}

// CacheDir returns where a cache of derived data lives: the directory
// $env names, "" (no cache) when $env is "off", else ctx/name in the
// user's cache directory ($XDG_CACHE_HOME, else ~/.cache, on Linux; ""
// when there is none). Caches hold only what can be derived again.
func CacheDir(env, name string) string {
	switch v := os.Getenv(env); v {
	case "off":
		return ""
	case "":
		dir, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(dir, "ctx", name)
	default:
		return v
	}
}

// A checked cache file is a header line — a label saying what the file
// holds, a space, and the CRC-32C of the body in 8 hex digits — followed
// by the body, so that a reader tells a whole file from a damaged one.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CheckedHeader is the header line of a checked cache file holding body
// under label.
func CheckedHeader(label string, body []byte) []byte {
	return fmt.Appendf(nil, "%s %08x\n", label, crc32.Checksum(body, castagnoli))
}

// CheckedBody returns the body of b, a checked cache file, when its
// header is label's and its body is whole; false otherwise.
func CheckedBody(label string, b []byte) ([]byte, bool) {
	n := len(label) + 10
	if len(b) < n || string(b[:len(label)]) != label || b[len(label)] != ' ' || b[n-1] != '\n' {
		return nil, false
	}
	sum, err := strconv.ParseUint(string(b[len(label)+1:n-1]), 16, 32)
	if err != nil || uint32(sum) != crc32.Checksum(b[n:], castagnoli) {
		return nil, false
	}
	return b[n:], true
}

// WriteCache writes the parts, one after the other, to name, a file of a
// cache (CacheDir), making its directory: whole or not at all
// (store.WriteOptions), so that a reader finds the whole file or the one
// before, and concurrent writers each write a whole one. Nothing is
// synced: a cache lost in a crash is only work to do again.
func WriteCache(name string, parts ...[]byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return err
	}
	return store.WriteOptions{Perm: 0o600, NoSync: true}.WriteFile(name, parts...)
}

// A DigestCache is a directory of checked cache files, one per digest of
// some content (a manifest's), each holding what was derived from that
// content: content never changes under its digest, so an entry never
// goes stale, and stores holding the same content share it. A file is
// named like a store object (Dir/ab/cdef…) and labelled with Magic, the
// digest and its body's length.
type DigestCache struct {
	Dir   string
	Magic string // what the files hold, and the version of their form
	What  string // for messages
}

// Path is the file of d's entry.
func (c DigestCache) Path(d digest.Digest) string { return filepath.Join(c.Dir, c.Name(d)) }

// Load returns the body of d's entry; false when there is none, or it is
// not whole.
func (c DigestCache) Load(d digest.Digest) ([]byte, bool) {
	b, err := found.ReadFile(c.Path(d), found.Rule{What: c.What, Max: store.MaxObjectInMemory})
	if err != nil {
		return nil, false
	}
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return nil, false
	}
	return CheckedBody(c.label(d, len(b)-i-1), b)
}

// Save writes body as d's entry, whole or not at all.
func (c DigestCache) Save(d digest.Digest, body []byte) error {
	return WriteCache(c.Path(d), CheckedHeader(c.label(d, len(body)), body), body)
}

// label says what an entry of n bytes of body holds.
func (c DigestCache) label(d digest.Digest, n int) string {
	return c.Magic + " " + d.Hex() + " " + strconv.Itoa(n)
}

// Name is d's entry's file name relative to Dir, as RemoveCache takes it.
func (c DigestCache) Name(d digest.Digest) string {
	h := d.Hex()
	return filepath.Join(h[:2], h[2:])
}

// Forget removes the entries of ds (RemoveCache), and returns how many
// files went.
func (c DigestCache) Forget(ds []digest.Digest) (int, error) {
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = c.Name(d)
	}
	return RemoveCache(c.Dir, names)
}

// RemoveCache removes the files names (paths relative to dir, as the
// cache names them) from the cache in dir (CacheDir), and returns how
// many it removed: what a cache kept of data that is gone. A missing
// file, or dir, is no error. dir itself may be a symlink (the user's
// choice, as for every read), but nothing is removed through one below
// it: a name whose directories are not all plain directories is passed
// over, and every removal goes through an os.Root of dir, so no name, and
// no symlink put in the cache meanwhile, leads out of it. A directory is
// never removed. A reader that finds a file gone derives it again, and
// one that has it open keeps reading what it opened.
func RemoveCache(dir string, names []string) (int, error) {
	if dir == "" || len(names) == 0 {
		return 0, nil
	}
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("removing from the cache %s: %w", dir, err)
	}
	defer root.Close()
	plain := map[string]bool{".": true} // directories seen to be plain ones
	isPlain := func(d string) bool {
		ok, seen := plain[d]
		if !seen {
			fi, err := root.Lstat(d)
			ok = err == nil && fi.IsDir()
			plain[d] = ok
		}
		return ok
	}
	n := 0
	for _, name := range names {
		if !filepath.IsLocal(name) || filepath.Clean(name) != name {
			return n, fmt.Errorf("removing %q from the cache %s: not a path inside it", name, dir)
		}
		// Every directory on the way, from the top.
		ok := true
		for i := 0; i < len(name) && ok; i++ {
			if name[i] == filepath.Separator {
				ok = isPlain(name[:i])
			}
		}
		if !ok {
			continue
		}
		if fi, err := root.Lstat(name); err != nil || fi.IsDir() {
			continue
		}
		switch err := root.Remove(name); {
		case err == nil:
			n++
		case !errors.Is(err, fs.ErrNotExist):
			return n, fmt.Errorf("removing %s from the cache %s: %w", name, dir, err)
		}
	}
	return n, nil
}
