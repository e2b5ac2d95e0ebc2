package attest

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/ctx-tools/ctx/lib/store"
	"github.com/ctx-tools/ctx/lib/userconfig"
)

// Trust says which keys an attestation may be signed with. A store never
// makes itself trusted: stores are copied, pulled and checked out from
// others, so a key named only by a store's own config.json is not trusted
// unless the user's config says that store is theirs.
//
// The keys come from exactly one of:
//   - keys the user named for this run (ctx-verify --key);
//   - the user's config (lib/userconfig): its "trusted_keys", plus the
//     "trusted_keys" of a store's config.json when the user config lists
//     that store in "trusted_stores".
type Trust struct {
	keys     []PublicKey
	explicit bool
	user     *userconfig.Config
}

// TrustKeys returns a Trust of exactly keys, whatever any config says.
func TrustKeys(keys []PublicKey) *Trust {
	return &Trust{keys: keys, explicit: true}
}

// LoadTrust reads the keys of the user's config:
//
//	{"trusted_keys": ["ci.pub", "~/.ssh/id_ed25519.pub", "ssh-ed25519 AAAA… ci"],
//	 "trusted_stores": ["/home/me/src/app/.ctx"]}
//
// A trusted key is a public key file (relative to the config's directory,
// or ~/…) or a key written inline: an OpenSSH "ssh-ed25519 …" line or a
// PEM block. A missing config trusts no key.
func LoadTrust(user *userconfig.Config) (*Trust, error) {
	t := &Trust{user: user}
	if user.Raw == nil {
		return t, nil
	}
	var c trustConfig
	if err := json.Unmarshal(user.Raw, &c); err != nil {
		return nil, fmt.Errorf("reading %s: %w", user.Path, err)
	}
	var err error
	t.keys, err = readKeys(c.TrustedKeys, filepath.Dir(user.Path), user.Path)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// trustConfig is the part of a config file Trust reads.
type trustConfig struct {
	TrustedKeys []string `json:"trusted_keys"`
}

// Keys returns the keys trusted for attestations found with store s (nil
// when there is none), and a note when s names keys that are not trusted.
func (t *Trust) Keys(s *store.Store) ([]PublicKey, string, error) {
	if t.explicit || s == nil {
		return t.keys, "", nil
	}
	var c trustConfig
	if err := json.Unmarshal(s.Config().Raw, &c); err != nil {
		return nil, "", fmt.Errorf("reading %s: %w", s.ConfigPath(), err)
	}
	if len(c.TrustedKeys) == 0 {
		return t.keys, "", nil
	}
	if !t.user.TrustsStore(s) {
		return t.keys, fmt.Sprintf("ignoring trusted_keys in %s: a store cannot make itself trusted; list its directory in trusted_stores of %s, or give --key", s.ConfigPath(), t.user.Name()), nil
	}
	keys, err := readKeys(c.TrustedKeys, filepath.Dir(s.Root()), s.ConfigPath())
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
	return "trusted_keys in " + t.user.Name()
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
			p, herr := userconfig.ExpandHome(e)
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
