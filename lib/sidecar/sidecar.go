// Package sidecar reads and writes provenance sidecars: the small canonical
// JSON file <artifact>.ctx.json that sits beside an artifact an agent
// produced and names the context pack that made it.
//
//	{"content_ref":"sha256:…","context_pack":"sha256:…","inputs":["sha256:…"],
//	 "output":"handlers/user.go","tools":["read_file"],"confidence":"high","notes":"…"}
//
// A sidecar is a claim; the pack is the record. ForPack derives the sidecars
// of a pack from its manifest, so a verifier can compare a sidecar it was
// handed with what the pack says. Write puts a sidecar under a directory
// without ever leaving it, and never silently replaces a different one.
package sidecar

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Suffix is appended to an artifact's name to name its sidecar.
const Suffix = ".ctx.json"

// Sidecar is the provenance record of one pack output.
type Sidecar struct {
	ContextPack digest.Digest   `json:"context_pack"`
	Output      string          `json:"output"`
	ContentRef  digest.Digest   `json:"content_ref"`
	Inputs      []digest.Digest `json:"inputs"`
	Tools       []string        `json:"tools"`
	Confidence  string          `json:"confidence,omitempty"`
	Notes       string          `json:"notes,omitempty"`
}

// ErrExists reports an existing sidecar with other content, which Write
// replaces only when forced.
var ErrExists = errors.New("a different file exists")

// ForPack returns the sidecar of every output of m, in manifest order. m.Hash
// must be set. Inputs are the content digests of the pack's inputs, in
// manifest order and each once; tools are the distinct tool names of its
// steps, sorted.
func ForPack(m *manifest.Manifest) []Sidecar {
	inputs := []digest.Digest{}
	seen := map[digest.Digest]bool{}
	for _, in := range m.Inputs {
		if in.ContentRef.IsZero() {
			continue // seen only by name: no content to name
		}
		if !seen[in.ContentRef] {
			seen[in.ContentRef] = true
			inputs = append(inputs, in.ContentRef)
		}
	}
	tools := []string{}
	for _, s := range m.Steps {
		if s.Tool != "" && !slices.Contains(tools, s.Tool) {
			tools = append(tools, s.Tool)
		}
	}
	slices.Sort(tools)
	out := make([]Sidecar, len(m.Outputs))
	for i, o := range m.Outputs {
		out[i] = Sidecar{
			ContextPack: m.Hash,
			Output:      o.Name,
			ContentRef:  o.ContentRef,
			Inputs:      inputs,
			Tools:       tools,
			Confidence:  o.Confidence,
			Notes:       o.Notes,
		}
	}
	return out
}

// Encode returns the stored form of sc: canonical JSON and a newline.
func Encode(sc Sidecar) ([]byte, error) {
	if sc.Inputs == nil {
		sc.Inputs = []digest.Digest{}
	}
	if sc.Tools == nil {
		sc.Tools = []string{}
	}
	b, err := canon.Marshal(sc)
	if err != nil {
		return nil, fmt.Errorf("encoding sidecar of %s: %w", sc.Output, err)
	}
	return append(b, '\n'), nil
}

// Parse decodes a sidecar strictly: unknown or duplicate members are errors,
// and context_pack and output are required.
func Parse(b []byte) (Sidecar, error) {
	if err := canon.Check(b); err != nil {
		return Sidecar{}, fmt.Errorf("parsing sidecar: %w", err)
	}
	var sc Sidecar
	if err := json.Unmarshal(b, &sc, json.RejectUnknownMembers(true)); err != nil {
		return Sidecar{}, fmt.Errorf("parsing sidecar: %w", err)
	}
	switch {
	case sc.ContextPack.IsZero():
		return Sidecar{}, errors.New("parsing sidecar: context_pack is missing")
	case sc.Output == "":
		return Sidecar{}, errors.New("parsing sidecar: output is missing")
	}
	return sc, nil
}

// Path returns where Write puts the sidecar of output name under dir.
func Path(dir, name string) string {
	return filepath.Join(dir, filepath.FromSlash(name+Suffix))
}

// CheckFiles reports, before anything is written, whether the files
// <name><suffix> of every name and suffix (such as an output's sidecar and
// its signed attestation) can be written under dir: every name is valid,
// no existing file or directory on the way leads outside dir or is in the
// way, and dir, if it exists, is a directory. Files that already exist
// are not an error here: Write compares them.
func CheckFiles(dir string, names []string, suffixes ...string) error {
	for _, n := range names {
		if err := manifest.CheckName(n); err != nil {
			return fmt.Errorf("sidecars in %s: %w", dir, err)
		}
	}
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sidecars in %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("sidecars in %s: not a directory", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("sidecars in %s: %w", dir, err)
	}
	defer root.Close()
	for _, n := range names {
		for _, suf := range suffixes {
			if err := checkPath(root, n+suf); err != nil {
				return fmt.Errorf("%s: %w", filepath.Join(dir, filepath.FromSlash(n+suf)), err)
			}
		}
	}
	return nil
}

// checkPath walks the existing prefix of name in root: every directory on
// the way must be one (a symlink must stay inside root), and the sidecar
// itself, if present, must be a regular file.
func checkPath(root *os.Root, name string) error {
	parts := strings.Split(name, "/")
	for i := range parts {
		p := filepath.FromSlash(strings.Join(parts[:i+1], "/"))
		fi, err := root.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return rootErr(p, err)
		}
		last := i == len(parts)-1
		if !last && !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", p)
		}
		if last && !fi.Mode().IsRegular() {
			return fmt.Errorf("%s exists and is not a regular file", p)
		}
	}
	return nil
}

// rootErr says what an os.Root refusal of p means: os.Root's own
// words ("statat src: path escapes from parent") name neither the cause
// nor the rule.
func rootErr(p string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err.Error() == "path escapes from parent" {
		return fmt.Errorf("%s is or passes through a symlink leading outside the directory: refused, nothing is written outside it", p)
	}
	return err
}

// Write stores sc as dir/<output>.ctx.json, creating dir and the
// directories a name like handlers/user.go needs, and returns the file's
// path. It never leaves dir, even through a symlink inside it. An existing
// sidecar with the same bytes is left alone; one with other bytes is
// ErrExists unless force is set, in which case it is replaced atomically.
func Write(dir string, sc Sidecar, force bool) (string, error) {
	b, err := Encode(sc)
	if err != nil {
		return Path(dir, sc.Output), err
	}
	return WriteFile(dir, sc.Output+Suffix, b, force)
}

// WriteFile stores b as dir/<name>, where name is an output's name with
// a suffix, under the rules of Write, and returns the file's path.
func WriteFile(dir, name string, b []byte, force bool) (string, error) {
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := manifest.CheckName(name); err != nil {
		return p, fmt.Errorf("writing %s in %s: %w", name, dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return p, fmt.Errorf("writing %s: %w", p, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return p, fmt.Errorf("writing %s: %w", p, err)
	}
	defer root.Close()
	rel := filepath.FromSlash(name)
	if sub := filepath.Dir(rel); sub != "." {
		if err := root.MkdirAll(sub, 0o755); err != nil {
			return p, fmt.Errorf("writing %s: %w", p, rootErr(sub, err))
		}
	}
	exists, same, err := compare(root, rel, b)
	switch {
	case err != nil:
		return p, fmt.Errorf("writing %s: %w", p, err)
	case same:
		return p, nil
	case exists && !force:
		return p, fmt.Errorf("writing %s: %w", p, ErrExists)
	}
	// Without force, a link never replaces: a file created meanwhile by
	// another writer is compared, not clobbered.
	err = store.WriteOptions{Perm: 0o644, Root: root, NoReplace: !force}.WriteFile(rel, b)
	if !force && errors.Is(err, fs.ErrExist) {
		if _, same, err = compare(root, rel, b); err == nil && !same {
			err = ErrExists
		}
	}
	if err != nil {
		return p, fmt.Errorf("writing %s: %w", p, err)
	}
	return p, nil
}

// compare reports whether rel exists in root and whether it holds exactly
// the bytes b.
func compare(root *os.Root, rel string, b []byte) (exists, same bool, err error) {
	old, err := root.ReadFile(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return true, false, err
	}
	return true, bytes.Equal(old, b), nil
}
