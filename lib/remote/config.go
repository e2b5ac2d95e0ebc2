package remote

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/go-json-experiment/json"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/store"
)

// Errors of the edits of config.json's "remotes"; test with errors.Is.
var (
	ErrRemoteExists = errors.New("remote already exists")
	ErrNoRemote     = errors.New("no such remote")
)

// CheckName reports whether name can name a remote: letters, digits, '.',
// '_' and '-', starting with a letter or digit, as a tag. Such a name is
// never read as a URL (it has no ':').
func CheckName(name string) error {
	if name == "" {
		return errors.New("empty remote name")
	}
	return store.CheckPlainName("remote", name)
}

// Add returns config (a store's config.json) with the remote name set to
// url, which Parse must accept; a name already there is ErrRemoteExists.
// A relative oci-layout:DIR is read from the working directory, as on a
// ctx-push command line, and kept relative to base (the directory holding
// the store, which Lookup reads it from) when it lies below base, so that
// the store can move with it; otherwise it is kept absolute. The other
// members of config are kept.
func Add(config []byte, name, url, base string) ([]byte, string, error) {
	if err := CheckName(name); err != nil {
		return nil, "", err
	}
	r, err := Parse(url)
	if err != nil {
		return nil, "", err
	}
	if r.IsLayout() {
		dir, err := filepath.Abs(r.Dir)
		if err != nil {
			return nil, "", err
		}
		if rel, err := filepath.Rel(base, dir); err == nil && filepath.IsLocal(rel) {
			dir = rel
		}
		r.URL = "oci-layout:" + dir
	}
	remotes, err := Remotes(config)
	if err != nil {
		return nil, "", err
	}
	if old, ok := remotes[name]; ok {
		return nil, "", fmt.Errorf("%w: %s (%s)", ErrRemoteExists, name, old)
	}
	if remotes == nil {
		remotes = map[string]string{}
	}
	remotes[name] = r.URL
	b, err := withRemotes(config, remotes)
	return b, r.URL, err
}

// Remove returns config without the remote name, and the URL it had; a
// name not there is ErrNoRemote. The other members of config are kept.
func Remove(config []byte, name string) ([]byte, string, error) {
	remotes, err := Remotes(config)
	if err != nil {
		return nil, "", err
	}
	url, ok := remotes[name]
	if !ok {
		return nil, "", fmt.Errorf("%w: %s", ErrNoRemote, name)
	}
	delete(remotes, name)
	b, err := withRemotes(config, remotes)
	return b, url, err
}

// withRemotes replaces config's "remotes" member (dropped when empty),
// keeping every other member's value, and returns the result as indented
// canonical JSON: members in canonical order, as ctx-init writes them.
func withRemotes(config []byte, remotes map[string]string) ([]byte, error) {
	if err := canon.Check(config); err != nil {
		return nil, fmt.Errorf("config.json: %w", err)
	}
	var members map[string]jsontext.Value
	if err := json.Unmarshal(config, &members); err != nil {
		return nil, fmt.Errorf("config.json: %w", err)
	}
	if len(remotes) == 0 {
		delete(members, "remotes")
	} else {
		b, err := json.Marshal(remotes)
		if err != nil {
			return nil, err
		}
		members["remotes"] = b
	}
	b, err := json.Marshal(members)
	if err != nil {
		return nil, err
	}
	c, err := canon.Canonicalize(b)
	if err != nil {
		return nil, fmt.Errorf("config.json: %w", err)
	}
	return append(canon.Indent(c), '\n'), nil
}

// IsURL reports whether s is written as a remote URL rather than a name.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "oci://") || strings.HasPrefix(s, "oci-layout:")
}
