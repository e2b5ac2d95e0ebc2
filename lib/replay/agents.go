package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/replay/render"
)

// What an agent's own tools (Options.Agents) get from a replay, beside the
// Call: its parameters read strictly (ParseParams), the workspace's files
// and what the pack knows of the files it does not hold whole, and a way
// to skip a step with the reason (Skipf).

// ParseParams reads a step's parameters for tool; every member must be
// read before Finish.
func ParseParams(tool string, v jsontext.Value) (*Params, error) {
	return parseParams(tool, v, nil)
}

// Skipf returns an error that skips the step with the reason, rather than
// failing it: the result cannot be reproduced from what the pack holds.
func Skipf(format string, args ...any) error {
	return &render.Unsupported{Reason: fmt.Sprintf(format, args...)}
}

// Partial reports whether the session saw lines of the file, not only its
// name.
func (sf *SeenFile) Partial() bool { return sf.seen == seenPartial }

// Line returns line n of the file (1-based), when the session saw it.
func (sf *SeenFile) Line(n int) (string, bool) {
	l, ok := sf.lines[n]
	return l, ok
}

// Total is the file's line count when the pack records it, else 0.
func (sf *SeenFile) Total() int { return sf.total }

// SeenNames returns the names of the files the session saw only by name
// or in part, in no order.
func (w *Workspace) SeenNames() iter.Seq[string] { return maps.Keys(w.seen) }

// Entry is a file a listing found: its workspace path and modification
// time.
type Entry struct {
	Name  string
	MTime time.Time
}

// Files walks base (in the lexical order ripgrep walks in) and returns
// every regular file keep accepts, plus the files of the pack seen only by
// name or in part in a hermetic workspace. VCS directories are skipped.
func (w *Workspace) Files(ctx context.Context, base string, keep func(rel string) bool) ([]Entry, error) {
	var out []Entry
	seen := map[string]bool{}
	var err error
	if _, serr := w.Root.Stat(base); !errors.Is(serr, fs.ErrNotExist) || !w.KnowsUnder(base) {
		err = w.walkFiles(ctx, base, keep, seen, &out)
	}
	// Otherwise base holds only files the session saw by name or in part.
	if err != nil {
		return nil, err
	}
	for name := range w.seen {
		rel, ok := Under(name, base)
		if !ok || seen[name] || !keep(rel) {
			continue
		}
		out = append(out, Entry{Name: name, MTime: fixedMTime})
	}
	if len(out) > len(seen) {
		// Names added from the pack go where the walk would have put them.
		slices.SortStableFunc(out, func(a, b Entry) int { return comparePaths(a.Name, b.Name) })
	}
	return out, nil
}

// KnowsUnder reports whether the pack knows a file under base that the
// workspace does not hold.
func (w *Workspace) KnowsUnder(base string) bool {
	for name := range w.seen {
		if _, ok := Under(name, base); ok {
			return true
		}
	}
	return false
}

// walkFiles is the walk of Files: the regular files under base keep
// accepts, in out, noted in seen.
func (w *Workspace) walkFiles(ctx context.Context, base string, keep func(rel string) bool, seen map[string]bool, out *[]Entry) error {
	return Walk(ctx, w.Root, base, func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			if vcsDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !keep(rel) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		name := path.Join(base, rel)
		seen[name] = true
		*out = append(*out, Entry{Name: name, MTime: info.ModTime()})
		return nil
	})
}

var vcsDirs = map[string]bool{".git": true, ".svn": true, ".hg": true, ".bzr": true, ".jj": true, ".sl": true}

// Under returns name relative to base, if it lies under it.
func Under(name, base string) (string, bool) {
	if base == "." {
		return name, true
	}
	rel, ok := strings.CutPrefix(name, base+"/")
	return rel, ok && rel != ""
}

// comparePaths orders paths as a directory walk in lexical order visits
// them: element by element.
func comparePaths(a, b string) int {
	return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
}

// ignoreFiles are the files whose rules ripgrep would apply to a search.
var ignoreFiles = map[string]bool{".gitignore": true, ".ignore": true, ".rgignore": true}

// IsIgnoreFile reports whether name is a file whose rules ripgrep would
// apply to a search (.gitignore, .ignore, .rgignore).
func IsIgnoreFile(name string) bool { return ignoreFiles[name] }

// IgnoreFile returns the first ignore file (IsIgnoreFile) under base, VCS
// directories left out, or "".
func (w *Workspace) IgnoreFile(ctx context.Context, base string) (string, error) {
	var found string
	err := Walk(ctx, w.Root, base, func(rel string, d fs.DirEntry) error {
		if d.IsDir() && vcsDirs[d.Name()] {
			return fs.SkipDir
		}
		if !d.IsDir() && ignoreFiles[d.Name()] {
			found = path.Join(base, rel)
			return fs.SkipAll
		}
		return nil
	})
	return found, err
}

// Unordered returns out, unless the workspace cannot know the order of
// its n entries (it is hermetic, and the order depends on modification
// times the pack does not record) and the recorded output holds the same
// lines in another order: then the step is skipped with that reason.
func (c *Call) Unordered(out []byte, n int, why string) ([]byte, error) {
	if !c.Workspace.Hermetic {
		return out, nil
	}
	return c.reordered(out, n, why+", and the pack does not record modification times")
}

// reordered returns out, unless the recorded output holds the same lines
// in another order, which the renderer cannot know (why): then the step
// is skipped with that reason.
func (c *Call) reordered(out []byte, n int, why string) ([]byte, error) {
	if n < 2 {
		return out, nil
	}
	rec, err := c.RecordedOutput()
	if err != nil || rec == nil || bytes.Equal(rec, out) {
		return out, err
	}
	if SameLines(rec, out) {
		return nil, Skipf("the same %d entries in another order: %s", n, why)
	}
	return out, nil
}

// SameLines reports whether a and b hold the same lines in some order.
func SameLines(a, b []byte) bool {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	if len(la) != len(lb) {
		return false
	}
	slices.Sort(la)
	slices.Sort(lb)
	return slices.Equal(la, lb)
}

// fixedMTime is the modification time of every file a hermetic workspace
// holds: the pack does not record real ones, so none is newer than
// another.
var fixedMTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// setFixedMTime gives name fixedMTime.
func (w *Workspace) setFixedMTime(name string) error {
	return w.Root.Chtimes(name, fixedMTime, fixedMTime)
}
