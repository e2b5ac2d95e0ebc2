package blame

import (
	"fmt"
	"slices"

	"github.com/ctx-tools/ctx/lib/attest"
	"github.com/ctx-tools/ctx/lib/git"
)

// CommitFiles returns the attributed ranges of the files commit changed,
// blamed as they are at commit (no line later than the commit): the
// predicate of its statement.
func (ix *Index) CommitFiles(repo *git.Repo, commit string) ([]attest.CommitFile, error) {
	added, err := repo.Added(commit)
	if err != nil {
		return nil, err
	}
	at, err := repo.CommitTime(commit)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(added))
	for p, a := range added {
		if a.Blob != "" { // a submodule has no lines here
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	blobs := make([]string, len(paths))
	for i, p := range paths {
		blobs[i] = added[p].Blob
	}
	var files []attest.CommitFile
	err = repo.Blobs(blobs, func(i int, content []byte) error {
		p := paths[i]
		text := Lines(content)
		f := attest.CommitFile{Path: p, Ranges: []attest.CommitRange{}}
		lines, err := ix.Blame(p, content, At(at))
		if err != nil {
			return err
		}
		for _, r := range Ranges(p, lines) {
			if r.By == ByUnknown {
				continue
			}
			f.Ranges = append(f.Ranges, attest.CommitRange{Start: r.Start, End: r.End, By: r.By, Pack: r.Pack, Step: *r.Step, ContentHash: contentHash(text[r.Start-1 : r.End])})
		}
		if len(f.Ranges) > 0 {
			files = append(files, f)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// CheckCommit says how the attribution a commit's statement records no
// longer holds: a range whose lines at the commit have another content
// hash, and any difference from the attribution blamed now. No
// difference: nil.
func (ix *Index) CheckCommit(repo *git.Repo, st *attest.CommitStatement) ([]string, error) {
	commit := st.Subject[0].Digest["gitCommit"]
	var problems []string
	for _, f := range st.Predicate.Files {
		content, err := repo.Show(commit, f.Path)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: not in commit %s", f.Path, commit))
			continue
		}
		text := Lines(content)
		for _, r := range f.Ranges {
			if r.Start < 1 || r.End < r.Start || r.End > len(text) {
				problems = append(problems, fmt.Sprintf("%s:%d-%d: beyond the file's %d lines", f.Path, r.Start, r.End, len(text)))
				continue
			}
			if h := contentHash(text[r.Start-1 : r.End]); h != r.ContentHash {
				problems = append(problems, fmt.Sprintf("%s:%d-%d: the lines differ from those attested", f.Path, r.Start, r.End))
			}
		}
	}
	now, err := ix.CommitFiles(repo, commit)
	if err != nil {
		return nil, err
	}
	want := map[string]attest.CommitRange{}
	for _, f := range st.Predicate.Files {
		for _, r := range f.Ranges {
			want[fmt.Sprintf("%s:%d-%d", f.Path, r.Start, r.End)] = r
		}
	}
	got := map[string]attest.CommitRange{}
	for _, f := range now {
		for _, r := range f.Ranges {
			got[fmt.Sprintf("%s:%d-%d", f.Path, r.Start, r.End)] = r
		}
	}
	for k, r := range want {
		g, ok := got[k]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: attested to %s step %d (%s), not so attributed by the store's packs now", k, r.Pack, r.Step, r.By))
		case g.Pack != r.Pack || g.Step != r.Step || g.By != r.By:
			problems = append(problems, fmt.Sprintf("%s: attested to %s step %d (%s), attributed to %s step %d (%s) now", k, r.Pack, r.Step, r.By, g.Pack, g.Step, g.By))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			problems = append(problems, fmt.Sprintf("%s: attributed to %s step %d (%s) now, not attested", k, g.Pack, g.Step, g.By))
		}
	}
	slices.Sort(problems)
	return problems, nil
}
