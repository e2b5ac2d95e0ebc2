// Package verdict remembers which packs and objects a secret-scanning rule
// set found clean (lib/secrets scans), so that scanning them again costs
// nothing. It does not link the scanner: a tool that only needs to know
// whether a pack is known clean (ctx-push pushing it again) stays small
// and starts fast.
package verdict

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/found"
)

// Cache remembers what a rule set found clean, so that scanning it again
// costs nothing: whole packs, one empty file each under
// DIR/<version>/packs/, and objects, in DIR/<version>/objects, a file of
// hex digests, one a line, appended to. A pack is immutable, so a pack
// found clean stays clean, and checking it costs one stat; an unreadable
// or torn line only means an object is scanned again. A nil *Cache
// remembers nothing.
//
// It lives in the user's cache directory, never in a store: stores are
// copied and pulled from others, and a verdict that content is clean is
// one only this user's own scans may give.
type Cache struct {
	dir string

	mu     sync.Mutex
	loaded bool
	clean  map[digest.Digest]bool
	added  []digest.Digest
	packs  []digest.Digest
}

// DefaultCacheDir is $XDG_CACHE_HOME/ctx/secrets (os.UserCacheDir), or
// "" when $CTX_SECRETS_CACHE is "off" or there is no cache directory.
func DefaultCacheDir() string {
	if os.Getenv("CTX_SECRETS_CACHE") == "off" {
		return ""
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "ctx", "secrets")
}

// Gitleaks is the version of gitleaks whose rules and detector lib/secrets
// runs (its test checks it against the build).
const Gitleaks = "8.30.1"

// Rules is the SHA-256 of the rules lib/secrets runs: gitleaks' default
// gitleaks.toml, a NUL, and ctx's own ctx.toml (its test checks it).
const Rules = "20c2cf0bd23a66fe2a6a4900d3c01f42ea9161af9359dd1dca6d19c62eed94dc"

// scanVersion changes whenever what lib/secrets scans, or how, changes,
// so that verdicts of an older ctx are not trusted.
const scanVersion = "s2"

// Version names a rule set: gitleaks' version, the way of scanning, and
// a hash of the rules and of the allowlist file given (nil for none). A
// verdict remembered for one version says nothing about another.
func Version(allowlist []byte) string {
	sum := sha256.New()
	sum.Write([]byte(Rules))
	sum.Write([]byte{0})
	sum.Write(allowlist)
	return "gitleaks-" + Gitleaks + "-" + scanVersion + "-" + hex.EncodeToString(sum.Sum(nil))[:16]
}

// Open returns the cache of the rule set version in dir, nil when dir is
// "". Nothing is read until asked for.
func Open(dir, version string) *Cache {
	if dir == "" {
		return nil
	}
	return &Cache{dir: filepath.Join(dir, version)}
}

// PackClean reports whether the pack d was found clean before.
func (c *Cache) PackClean(d digest.Digest) bool {
	if c == nil {
		return false
	}
	fi, err := os.Lstat(filepath.Join(c.dir, "packs", d.Hex()))
	return err == nil && fi.Mode().IsRegular()
}

// maxObjects bounds the objects file: a million verdicts. Past it the
// file is neither read nor appended to, and objects are scanned again.
const maxObjects = 65 << 20

// objects is the file of object verdicts.
func (c *Cache) objects() string { return filepath.Join(c.dir, "objects") }

// rule is what the objects file must be (lib/found): a regular file in
// the cache directory, of at most maxObjects bytes.
func (c *Cache) rule() found.Rule {
	return found.Rule{What: "secret-scan verdict cache", Max: maxObjects, Within: c.dir}
}

// load reads the object verdicts, once; c.mu is held.
func (c *Cache) load() {
	if c.loaded {
		return
	}
	c.loaded = true
	c.clean = map[digest.Digest]bool{}
	// The cache directory is the user's, but what is in it is not
	// vouched for: a pipe or a link to /dev/zero in place of the file
	// is refused, never read (which would block, or never end).
	b, err := found.ReadFile(c.objects(), c.rule())
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if d, err := digest.Parse("sha256:" + sc.Text()); err == nil {
			c.clean[d] = true
		}
	}
}

// Clean reports whether the object d was found clean before.
func (c *Cache) Clean(d digest.Digest) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	return c.clean[d]
}

// Add records the object d as clean; Save writes it.
func (c *Cache) Add(d digest.Digest) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	if !c.clean[d] {
		c.clean[d] = true
		c.added = append(c.added, d)
	}
}

// AddPack records the pack d as clean; Save writes it.
func (c *Cache) AddPack(d digest.Digest) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.packs = append(c.packs, d)
}

// Save writes the verdicts added since the cache was opened: the objects
// appended in one write, then a file per pack. A cache that cannot be
// written is no error: the next scan is only slower.
func (c *Cache) Save() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.added) == 0 && len(c.packs) == 0 {
		return
	}
	if err := os.MkdirAll(filepath.Join(c.dir, "packs"), 0o700); err != nil {
		return
	}
	if len(c.added) > 0 {
		var b bytes.Buffer
		for _, d := range c.added {
			b.WriteString(d.Hex())
			b.WriteByte('\n')
		}
		f, err := found.Append(c.objects(), c.rule(), 0o600)
		if err != nil {
			return
		}
		_, err = f.Write(b.Bytes())
		if f.Close() != nil || err != nil {
			return
		}
		c.added = nil
	}
	// A pack's verdict only after its objects': a crash in between only
	// means the pack is checked object by object again.
	for _, d := range c.packs {
		r := found.Rule{What: "secret-scan verdict", Max: 0, Within: c.dir}
		if f, err := found.Append(filepath.Join(c.dir, "packs", d.Hex()), r, 0o600); err == nil {
			f.Close()
		}
	}
	c.packs = nil
}
