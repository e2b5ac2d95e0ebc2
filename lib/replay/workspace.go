package replay

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Workspace is the directory steps run in. Built-ins reach it only through
// Root, so nothing they open can lie outside it.
type Workspace struct {
	Dir  string
	Root *os.Root
	// Hermetic is set for a workspace made of the pack's inputs: the files
	// have no real modification times, and files the session saw only by
	// name or in part are known from the pack (seen), not from the disk.
	Hermetic bool
	// RecordedDir is the working directory the session ran in, as the pack
	// records it (metadata.session.cwd, kept by the importers), or "".
	// Agents print paths under it in their results (a listing of
	// absolute paths); the renderers print workspace paths the same way.
	RecordedDir string

	seen map[string]*SeenFile
	// unknown holds the files whose content the replay no longer knows
	// (an edit it could not carry out changed them), with why.
	unknown map[string]string
	// written holds the files replayed edits wrote, which hold what the
	// session wrote.
	written map[string]bool
	// absent holds the files an edit found missing: in a hermetic
	// workspace, a file may be missing only because the pack does not
	// hold it.
	absent map[string]bool
}

// What an input's seen member says the session observed of a file.
const (
	seenPartial = "partial"
	seenName    = "name"
)

// SeenFile is an input the session saw only by name, or only in part:
// lines holds the known lines by number, total the file's line count when
// recorded (else 0).
type SeenFile struct {
	seen  string
	lines map[int]string
	total int
}

// SeenAs returns what the pack knows of name when it is not the whole
// file, or nil.
func (w *Workspace) SeenAs(name string) *SeenFile {
	return w.seen[name]
}

// Shown is how the recording agent would print workspace path name: under
// the recorded working directory when there is one.
func (w *Workspace) Shown(name string) string {
	switch {
	case w.RecordedDir == "":
		return name
	case name == ".":
		return w.RecordedDir
	}
	if sep := w.sep(); sep != "/" {
		return strings.TrimSuffix(w.RecordedDir, sep) + sep + strings.ReplaceAll(name, "/", sep)
	}
	return strings.TrimSuffix(w.RecordedDir, "/") + "/" + name
}

// sep is the separator of the recorded working directory: "\" for a
// Windows one written with it (C:\Users\dev), else "/".
func (w *Workspace) sep() string {
	if windowsDir(w.RecordedDir) && strings.Contains(w.RecordedDir, `\`) {
		return `\`
	}
	return "/"
}

// windowsDir reports whether a recorded working directory is a Windows
// one: a drive letter, a colon and a separator (C:\Users\dev, C:/Users).
func windowsDir(d string) bool {
	return len(d) >= 3 && (d[0]|0x20 >= 'a' && d[0]|0x20 <= 'z') && d[1] == ':' && (d[2] == '\\' || d[2] == '/')
}

// recordedDir returns the working directory a pack's session ran in, as
// its metadata records it (session.cwd), when it is absolute: a Unix or
// a Windows path. "" otherwise.
func recordedDir(metadata []byte) string {
	dir := gjson.GetBytes(metadata, "session.cwd")
	if dir.Type == gjson.String && (strings.HasPrefix(dir.Str, "/") || windowsDir(dir.Str)) {
		return dir.Str
	}
	return ""
}

// Local makes a path the agent wrote under the recorded working directory
// a workspace path; other paths are returned as they are.
func (w *Workspace) Local(p string) string {
	if w.RecordedDir == "" {
		return p
	}
	dir := strings.TrimSuffix(w.RecordedDir, "/")
	if windowsDir(dir) {
		// Either separator, as the agent wrote the path.
		dir = strings.TrimSuffix(strings.ReplaceAll(dir, `\`, "/"), "/")
		if slashed := strings.ReplaceAll(p, `\`, "/"); windowsDir(slashed) {
			p = slashed
		}
	}
	if p == dir {
		return "."
	}
	if rest, ok := strings.CutPrefix(p, dir+"/"); ok && rest != "" {
		return rest
	}
	return p
}

// Close releases the workspace and leaves its directory in place.
func (w *Workspace) Close() error { return w.Root.Close() }

// Remove releases the workspace and deletes its directory.
func (w *Workspace) Remove() error {
	w.Root.Close()
	return os.RemoveAll(w.Dir)
}

// OpenLive opens an existing directory as the workspace.
func OpenLive(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("opening workspace %s: %w", dir, err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("opening workspace: %w", err)
	}
	return &Workspace{Dir: abs, Root: root}, nil
}

// Materialise creates a temporary workspace in tmp (os.TempDir() if empty)
// holding every input under its name. An input that cannot be written (its
// object is missing, or its name is unusable) is left out and reported as
// missing_input drift. A corrupt object is an error: the store is damaged,
// which says nothing about the run (exit 2, not a replay verdict).
func Materialise(s *store.Store, inputs []manifest.File, tmp string) (*Workspace, []Drift, error) {
	dir, err := os.MkdirTemp(tmp, "ctx-replay-")
	if err != nil {
		return nil, nil, fmt.Errorf("creating workspace: %w", err)
	}
	return materialise(s, inputs, dir)
}

// ErrWorkspaceNotEmpty reports a directory given for the workspace that
// already holds files.
var ErrWorkspaceNotEmpty = errors.New("the directory is not empty")

// MaterialiseDir is Materialise into dir, which must not exist yet or be
// an empty directory. On an error, dir is left as it was found.
func MaterialiseDir(s *store.Store, inputs []manifest.File, dir string) (*Workspace, []Drift, error) {
	err := os.Mkdir(dir, 0o755)
	if errors.Is(err, fs.ErrExist) {
		entries, rerr := os.ReadDir(dir)
		switch {
		case rerr != nil:
			return nil, nil, fmt.Errorf("creating workspace: %w", rerr)
		case len(entries) > 0:
			return nil, nil, fmt.Errorf("creating workspace in %s: %w", dir, ErrWorkspaceNotEmpty)
		}
		ws, drift, err := materialise(s, inputs, dir)
		if err != nil {
			os.Mkdir(dir, 0o755) // materialise removed it
		}
		return ws, drift, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("creating workspace: %w", err)
	}
	return materialise(s, inputs, dir)
}

func materialise(s *store.Store, inputs []manifest.File, dir string) (*Workspace, []Drift, error) {
	return materialiseOver(s, inputs, dir, false)
}

// materialiseOver writes the inputs into dir; with over, an input replaces
// a file of its name already there (a work tree's).
func materialiseOver(s *store.Store, inputs []manifest.File, dir string, over bool) (*Workspace, []Drift, error) {
	ws, err := OpenLive(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	ws.Hermetic = true
	var drift []Drift
	// One object named by many inputs is written once; the other names
	// are hard links to it, so a pack cannot make the workspace larger
	// than the distinct content it holds.
	written := map[digest.Digest]string{}
	for _, in := range inputs {
		if in.Seen != manifest.SeenWhole {
			err := ws.addSeen(s, in)
			if errors.Is(err, store.ErrCorrupt) {
				ws.Root.Close()
				os.RemoveAll(dir)
				return nil, nil, fmt.Errorf("reading input %s: %w", in.Name, err)
			} else if err != nil {
				drift = append(drift, Drift{Type: DriftMissingInput, Name: in.Name, Expected: in.ContentRef.String(), Reason: err.Error()})
			}
			continue
		}
		if over {
			if err := checkName(in.Name); err == nil {
				if err := ws.Root.Remove(in.Name); err != nil && !errors.Is(err, fs.ErrNotExist) {
					drift = append(drift, Drift{Type: DriftMissingInput, Name: in.Name, Expected: in.ContentRef.String(), Reason: UnwrapPath(err).Error()})
					continue
				}
			}
		}
		if first, ok := written[in.ContentRef]; ok && ws.link(first, in.Name) == nil {
			continue
		}
		err := ws.write(s, in)
		if err == nil {
			written[in.ContentRef] = in.Name
		}
		if errors.Is(err, store.ErrCorrupt) {
			ws.Root.Close()
			os.RemoveAll(dir)
			return nil, nil, fmt.Errorf("materialising input %s: %w", in.Name, err)
		} else if err != nil {
			drift = append(drift, Drift{Type: DriftMissingInput, Name: in.Name, Expected: in.ContentRef.String(), Reason: err.Error()})
		}
	}
	return ws, drift, nil
}

// addSeen records an input the session saw only by name or in part: it
// is not written, but listings know its name and Reads its known lines.
func (w *Workspace) addSeen(s *store.Store, in manifest.File) error {
	if err := checkName(in.Name); err != nil {
		return err
	}
	if w.seen == nil {
		w.seen = map[string]*SeenFile{}
	}
	sf := &SeenFile{seen: seenName}
	if in.Seen == manifest.SeenPartial {
		b, err := s.Get(in.ContentRef)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("object %s is not in the store", in.ContentRef)
			}
			return err
		}
		sf.seen, sf.total, sf.lines = seenPartial, int(in.TotalLines), map[int]string{}
		text := strings.Split(string(b), "\n")
		if len(text) > 0 && text[len(text)-1] == "" {
			text = text[:len(text)-1]
		}
		k := 0
		for _, r := range in.Lines {
			for n := r[0]; n <= r[1] && k < len(text); n++ {
				sf.lines[int(n)] = text[k]
				k++
			}
		}
	}
	w.seen[in.Name] = sf
	return nil
}

func (w *Workspace) write(s *store.Store, in manifest.File) error {
	if err := checkName(in.Name); err != nil {
		return err
	}
	r, err := s.Open(in.ContentRef)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("object %s is not in the store", in.ContentRef)
		}
		return err
	}
	defer r.Close()
	if dir := path.Dir(in.Name); dir != "." {
		if err := w.Root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", dir, err)
		}
	}
	// Never more than the pack declares: an object of another size is
	// not this input.
	if r.Size() != in.Size {
		return fmt.Errorf("object %s is %d bytes, but the pack declares %d", in.ContentRef, r.Size(), in.Size)
	}
	f, err := w.Root.OpenFile(in.Name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("creating %s: %w", in.Name, err)
	}
	// One byte more than declared lets the reader reach EOF, where it
	// verifies the digest.
	_, err = io.Copy(f, io.LimitReader(r, in.Size+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = w.setFixedMTime(in.Name)
	}
	if err != nil {
		w.Root.Remove(in.Name)
		return fmt.Errorf("writing %s: %w", in.Name, err)
	}
	return nil
}

// link makes name a hard link to the input first, already written.
func (w *Workspace) link(first, name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if dir := path.Dir(name); dir != "." {
		if err := w.Root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return w.Root.Link(first, name)
}

// checkName accepts the names ctx-pack accepts for inputs.
func checkName(name string) error {
	if err := manifest.CheckName(name); err != nil {
		return fmt.Errorf("input %w", err)
	}
	return nil
}

// CheckInputs compares the inputs of a pack with the files of a live
// workspace: absent files are missing_input drift, other bytes
// input_changed.
func (w *Workspace) CheckInputs(s *store.Store, inputs []manifest.File) []Drift {
	var drift []Drift
	for _, in := range inputs {
		if in.Seen != manifest.SeenWhole {
			continue // no bytes to compare: the session did not see them all
		}
		d := Drift{Name: in.Name, Expected: in.ContentRef.String()}
		got, err := w.hash(in.Name)
		switch {
		case err != nil:
			d.Type = DriftMissingInput
			d.Reason = err.Error()
		case got != in.ContentRef:
			d.Type = DriftInputChanged
			d.Actual = got.String()
		default:
			continue
		}
		drift = append(drift, d)
	}
	return drift
}

func (w *Workspace) hash(name string) (digest.Digest, error) {
	if err := checkName(name); err != nil {
		return digest.Digest{}, err
	}
	// Without blocking: a named pipe would hang the open until a writer
	// came; its type is then checked.
	f, err := w.Root.OpenFile(name, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return digest.Digest{}, fmt.Errorf("opening %s: %w", name, UnwrapPath(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return digest.Digest{}, fmt.Errorf("%s is not a regular file", name)
	}
	d, _, err := digest.OfReader(f)
	if err != nil {
		return digest.Digest{}, fmt.Errorf("reading %s: %w", name, UnwrapPath(err))
	}
	return d, nil
}

// errEscapes replaces os.Root's "path escapes from parent", which names
// no exported error, with what it means here.
var errEscapes = errors.New("leads outside the workspace")

// UnwrapPath drops the *PathError wrapper, whose path is the name the
// caller already gives, and keeps its cause ("no such file or directory").
func UnwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if err.Error() == "path escapes from parent" {
		return errEscapes
	}
	return err
}

// outsideError is a path outside the recorded working directory: the
// pack holds nothing there and the workspace has no such place, so the
// step is skipped, not failed.
type outsideError struct {
	path, why string
}

func (e *outsideError) Error() string {
	return fmt.Sprintf("path %q %s; only files inside the working directory are replayed", e.path, e.why)
}

// Resolve checks a path parameter and returns the fs.FS name for it.
// Absolute paths, ".." elements and "~" (each an *outsideError) and NUL
// bytes are refused; os.Root refuses symbolic links that lead out.
func Resolve(p string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("path is empty")
	case strings.ContainsRune(p, 0):
		return "", fmt.Errorf("path %q holds a NUL byte", p)
	case filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || filepath.VolumeName(p) != "":
		return "", &outsideError{p, "is absolute, outside the recorded working directory"}
	case p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "~"):
		return "", &outsideError{p, "is under a home directory (~), outside the recorded working directory"}
	}
	for _, el := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if el == ".." {
			return "", &outsideError{p, "leads outside the working directory through \"..\""}
		}
	}
	return path.Clean(filepath.ToSlash(p)), nil
}
