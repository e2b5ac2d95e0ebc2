package attest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/ctx-tools/ctx/lib/store"
)

// Trust says which keys an attestation may be signed with. A store never
// makes itself trusted: stores are copied, pulled and checked out from
// others, so a key named only by a store's own config.json is not trusted
// unless the user's config says that store is theirs.
//
// The keys come from exactly one of:
//   - keys the user named for this run (ctx-verify --key);
//   - the user's config file (UserConfig): its "trusted_keys", plus the
//     "trusted_keys" of a store's config.json when the store's directory
//     is listed in the user config's "trusted_stores".
type Trust struct {
	keys     []PublicKey
	explicit bool
	stores   []string // absolute .ctx directories the user trusts
	config   string   // the user config's path, for messages
}

// TrustKeys returns a Trust of exactly keys, whatever any config says.
func TrustKeys(keys []PublicKey) *Trust {
	return &Trust{keys: keys, explicit: true}
}

// UserConfig returns the path of the user's ctx config: $CTX_CONFIG, else
// ctx/config.json under the user's config directory
// ($XDG_CONFIG_HOME, else ~/.config, on Linux).
func UserConfig() (string, error) {
	if p := os.Getenv("CTX_CONFIG"); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("locating the user config: %w", err)
	}
	return filepath.Join(dir, "ctx", "config.json"), nil
}

// trustConfig is the part of a config file Trust reads. Other members are
// left to the features they belong to.
type trustConfig struct {
	TrustedKeys   []string `json:"trusted_keys"`
	TrustedStores []string `json:"trusted_stores"`
}

// LoadTrust reads the user config at path (see UserConfig). A missing
// file trusts no key.
//
//	{"trusted_keys": ["ci.pub", "~/.ssh/id_ed25519.pub", "ssh-ed25519 AAAA… ci"],
//	 "trusted_stores": ["/home/me/src/app/.ctx"]}
//
// A trusted key is a public key file (relative to the config's directory,
// or ~/…) or a key written inline: an OpenSSH "ssh-ed25519 …" line or a
// PEM block.
func LoadTrust(path string) (*Trust, error) {
	t := &Trust{config: path}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading user config: %w", err)
	}
	var c trustConfig
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	t.keys, err = readKeys(c.TrustedKeys, filepath.Dir(path), path)
	if err != nil {
		return nil, err
	}
	for i, s := range c.TrustedStores {
		p, err := expandHome(s)
		if err == nil && !filepath.IsAbs(p) {
			err = errors.New("not an absolute path")
		}
		if err != nil {
			return nil, fmt.Errorf("%s: trusted_stores[%d] %q: %v", path, i, s, err)
		}
		t.stores = append(t.stores, filepath.Clean(p))
	}
	return t, nil
}

// Keys returns the keys trusted for attestations found with store s (nil
// when there is none), and a note when s names keys that are not trusted.
func (t *Trust) Keys(s *store.Store) ([]PublicKey, string, error) {
	if t.explicit || s == nil {
		return t.keys, "", nil
	}
	var c trustConfig
	if err := json.Unmarshal(s.Config().Raw, &c); err != nil {
		return nil, "", fmt.Errorf("reading %s: %w", s.Path("config.json"), err)
	}
	if len(c.TrustedKeys) == 0 {
		return t.keys, "", nil
	}
	if !slices.Contains(t.stores, s.Root()) {
		return t.keys, fmt.Sprintf("ignoring trusted_keys in %s: a store cannot make itself trusted; list its directory in trusted_stores of %s, or give --key", s.Path("config.json"), t.config), nil
	}
	keys, err := readKeys(c.TrustedKeys, filepath.Dir(s.Root()), s.Path("config.json"))
	if err != nil {
		return nil, "", err
	}
	return append(slices.Clone(t.keys), keys...), "", nil
}

// Described says where keys come from, for a message about having none.
func (t *Trust) Described() string {
	if t.explicit {
		return "the keys given with --key"
	}
	return "trusted_keys in " + t.config
}

func readKeys(entries []string, dir, source string) ([]PublicKey, error) {
	var keys []PublicKey
	for i, e := range entries {
		where := fmt.Sprintf("%s: trusted_keys[%d]", source, i)
		var k PublicKey
		var err error
		if strings.HasPrefix(e, "ssh-") || strings.HasPrefix(e, "-----BEGIN") {
			if k, err = ParsePublicKey([]byte(e), where); err != nil {
				return nil, err
			}
		} else {
			p, herr := expandHome(e)
			if herr != nil {
				return nil, fmt.Errorf("%s: %v", where, herr)
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			k, err = LoadPublicKey(p)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

func expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, p[1:]), nil
}
