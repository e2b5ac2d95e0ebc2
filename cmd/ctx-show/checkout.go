package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ctx-tools/ctx/lib/atif"
	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/sidecar"
	"github.com/ctx-tools/ctx/lib/store"
)

// checkedOut is what --checkout prints: the files written, and the
// inputs that could not be (seen only in part or by name).
type checkedOut struct {
	Pack    digest.Digest `json:"pack"`
	Dir     string        `json:"dir"`
	What    string        `json:"what"`
	Files   []fileOut     `json:"files"`
	Skipped []skipped     `json:"skipped,omitzero"`
}

type fileOut struct {
	Name string        `json:"name"`
	Path string        `json:"path"`
	Hash digest.Digest `json:"hash"`
	Size int64         `json:"size"`
}

type skipped struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// checkout writes the outputs of pack r (its whole inputs with --inputs)
// as files under c.Checkout, named as the pack names them. Every name is
// checked, and every file compared with what is there, before anything is
// written: a file with other content is refused without --force, and
// nothing is ever written outside the directory, symlinks included.
func (c *showCmd) checkout(env *cli.Env, s *store.Store, r string) error {
	m, err := ref.Load(s, r)
	if err != nil {
		return err
	}
	res := checkedOut{Pack: m.Hash, Dir: c.Checkout, What: "outputs", Files: []fileOut{}}
	type file struct {
		name string
		d    digest.Digest
	}
	var files []file
	if c.Inputs {
		res.What = "inputs"
		for _, in := range m.Inputs {
			switch in.Seen {
			case manifest.SeenName:
				res.Skipped = append(res.Skipped, skipped{in.Name, "seen only by name: no content"})
			case manifest.SeenPartial:
				res.Skipped = append(res.Skipped, skipped{in.Name, "seen only in part: the file's other lines are unknown"})
			default:
				files = append(files, file{in.Name, in.ContentRef})
			}
		}
	} else {
		for _, o := range m.Outputs {
			files = append(files, file{o.Name, o.ContentRef})
		}
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.name
	}
	if err := sidecar.CheckFiles(c.Checkout, names, ""); err != nil {
		return cli.WithCode(cli.ExitError, fmt.Errorf("checking out %s: %w", m.Hash, err))
	}
	var conflicts []string
	contents := make([][]byte, len(files))
	for i, f := range files {
		b, err := s.Get(f.d)
		if err != nil {
			return fmt.Errorf("checking out %s: %s: %w", m.Hash, f.name, err)
		}
		contents[i] = b
		p := filepath.Join(c.Checkout, filepath.FromSlash(f.name))
		old, err := store.ReadFile(p, int64(len(b))+1)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil && !c.Force:
			conflicts = append(conflicts, p)
		case err == nil && !bytes.Equal(old, b) && !c.Force:
			conflicts = append(conflicts, p)
		}
	}
	if len(conflicts) > 0 {
		return cli.WithHint(cli.Errorf(cli.ExitError, "checking out %s: %d file(s) exist with other content: %s", m.Hash, len(conflicts), strings.Join(conflicts, ", ")),
			"nothing was written; use --force to replace them, or another directory")
	}
	for i, f := range files {
		p, err := sidecar.WriteFile(c.Checkout, f.name, contents[i], c.Force)
		if err != nil {
			return fmt.Errorf("checking out %s: %w", m.Hash, err)
		}
		res.Files = append(res.Files, fileOut{Name: f.name, Path: p, Hash: f.d, Size: int64(len(contents[i]))})
	}
	for _, sk := range res.Skipped {
		env.Warnf("%s: %s not written: %s", m.Hash.Short(), sk.Name, sk.Reason)
	}
	if env.Human() {
		var b strings.Builder
		fmt.Fprintf(&b, "checked out the %s of %s into %s\n", res.What, m.Hash, cli.Escape(c.Checkout))
		for _, f := range res.Files {
			fmt.Fprintf(&b, "  %s  %s\n", cli.Escape(f.Path), cli.Plural(f.Size, "byte"))
		}
		return env.Text(b.String())
	}
	return env.Result(res)
}

// checkoutDir refuses a --checkout directory inside the store: files
// there would be taken for store garbage.
func checkoutDir(s *store.Store, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	root, err := filepath.Abs(s.Root())
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(root, abs); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
		return cli.Errorf(cli.ExitUsage, "--checkout %s is inside the store %s", dir, s.Root())
	}
	return nil
}

// writeMedia writes the images an --atif trajectory names by a path
// under dir, the trajectory's directory. Every path is checked, and
// every file compared with what is there, before anything is written: a
// file with other content is refused, and nothing is written outside dir.
func writeMedia(dir string, media []atif.Media) error {
	names := make([]string, len(media))
	for i, f := range media {
		names[i] = f.Path
	}
	if err := sidecar.CheckFiles(dir, names, ""); err != nil {
		return cli.WithCode(cli.ExitError, fmt.Errorf("writing the trajectory's images: %w", err))
	}
	var conflicts []string
	for _, f := range media {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		old, err := store.ReadFile(p, int64(len(f.Data))+1)
		if err == nil && !bytes.Equal(old, f.Data) || err != nil && !errors.Is(err, fs.ErrNotExist) {
			conflicts = append(conflicts, p)
		}
	}
	if len(conflicts) > 0 {
		return cli.WithHint(cli.Errorf(cli.ExitError, "writing the trajectory's images: %d file(s) exist with other content: %s", len(conflicts), strings.Join(conflicts, ", ")),
			"nothing was written; write the trajectory to another directory")
	}
	for _, f := range media {
		if _, err := sidecar.WriteFile(dir, f.Path, f.Data, false); err != nil {
			return fmt.Errorf("writing the trajectory's images: %w", err)
		}
	}
	return nil
}
