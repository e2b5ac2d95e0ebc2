package blame

import (
	"fmt"
	"strings"
	"time"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/git"
)

// TrailerKey is the commit trailer that links a commit to a pack:
// "Ctx-Pack: ctx://<hex>". A hash reveals nothing of the session; reading
// it needs the pack.
const TrailerKey = "Ctx-Pack"

// RevError is a failure to resolve a revision named on the command line:
// the git work tree could not be opened (an operational error, exit 2), or
// the revision names no commit or range in it (a usage error, exit 3).
type RevError struct {
	Flag  string // the flag that named the revision, as "--commit"
	Rev   string
	Usage bool // the revision is at fault, not the work tree
	Err   error
}

func (e *RevError) Error() string {
	if e.Usage { // Err quotes the revision
		return fmt.Sprintf("%s: %v", e.Flag, e.Err)
	}
	return fmt.Sprintf("%s %s: %v", e.Flag, e.Rev, e.Err)
}

func (e *RevError) Unwrap() error { return e.Err }

// ExitCode is 3 for a revision that names nothing, else 2.
func (e *RevError) ExitCode() int {
	if e.Usage {
		return 3
	}
	return 2
}

// Commits opens the git work tree that holds dir and resolves rev, named
// by flag, in it: one commit, or with ranges also a range A..B, newest
// first. Its errors are *RevError.
func Commits(dir, flag, rev string, ranges bool) (*git.Repo, []string, error) {
	repo, err := git.Open(dir)
	if err != nil {
		return nil, nil, &RevError{Flag: flag, Rev: rev, Err: err}
	}
	var commits []string
	if ranges {
		commits, err = repo.Commits(rev)
	} else {
		var c string
		c, err = repo.Commit(rev)
		commits = []string{c}
	}
	if err != nil {
		return nil, nil, &RevError{Flag: flag, Rev: rev, Usage: true, Err: err}
	}
	return repo, commits, nil
}

// CommitPacks returns the packs of the commits: those their Ctx-Pack
// trailers name, and those whose recorded edits wrote lines the commits
// add (found so even when a history edit stripped the trailers), each
// with the number of added lines it wrote (0 for a pack known only by a
// trailer). A commit's lines existed when it was made (its committer
// date): a step recorded after that wrote none of them.
func (ix *Index) CommitPacks(repo *git.Repo, commits []string) (map[digest.Digest]int, error) {
	found := map[digest.Digest]int{}
	for _, c := range commits {
		vs, err := repo.Trailers(c, TrailerKey)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if d, err := digest.Parse(strings.TrimPrefix(v, "ctx://")); err == nil {
				found[d] += 0
			}
		}
		added, err := repo.Added(c)
		if err != nil {
			return nil, err
		}
		at, err := repo.CommitTime(c)
		if err != nil {
			return nil, err
		}
		counts, err := ix.AddedPacks(repo, added, At(at))
		if err != nil {
			return nil, err
		}
		for p, n := range counts {
			if d, err := digest.Parse(p); err == nil {
				found[d] += n
			}
		}
	}
	return found, nil
}

// AddedPacks counts, per pack, the lines of added (what a commit or the
// index adds, git.Repo.Added and StagedAdded) that the pack's recorded
// edits wrote, as PackLines does. Only the files whose added lines a
// recorded edit could have written are read, all through one git
// process: a commit of thousands of files no pack touched reads none.
// past is what is known of the lines' past, as for Blame.
func (ix *Index) AddedPacks(repo *git.Repo, added map[string]*git.Adds, past *Past) (map[string]int, error) {
	var files, blobs []string
	for file, a := range added {
		if a.Blob != "" && ix.mayHaveWritten(file, a.Text) {
			files, blobs = append(files, file), append(blobs, a.Blob)
		}
	}
	if ix.lz != nil {
		// Replay, at once, the histories all the files may need.
		var ids []int
		for _, f := range files {
			ids = append(ids, ix.lz.cat.candidates(f)...)
			for _, l := range added[f].Text {
				if t := strings.TrimSpace(l); distinctive(t) {
					ids = append(ids, ix.lz.cat.linePaths(t)...)
				}
			}
		}
		if err := ix.need(ids); err != nil {
			return nil, err
		}
	}
	counts := map[string]int{}
	err := repo.Blobs(blobs, func(i int, content []byte) error {
		ps, err := ix.PackLines(files[i], content, added[files[i]].Lines, past)
		for p, n := range ps {
			counts[p] += n
		}
		return err
	})
	return counts, err
}

// GitPast is what git says of the past of each line of content, the text
// of file (relative to the root) at rev ("" for the work tree): the date
// of the commit each line comes from, and whether it took another line
// than an agent's in its place. nil when git cannot blame the file.
func GitPast(repo *git.Repo, rev, file string, content []byte) *Past {
	srcs, err := repo.LineSources(rev, file, content)
	if err != nil || len(srcs) != len(Lines(content)) {
		return nil
	}
	before := map[string][]string{} // by commit: the file in its parents
	committed := map[string]bool{}  // by path and line: some commit holds it
	return &Past{
		Until: func(i int) time.Time { return srcs[i].Time },
		Rejected: func(i int, was string) bool {
			src := srcs[i]
			lines, ok := before[src.Commit]
			if !ok {
				revs := []string{src.Commit}
				if src.Commit == "" {
					revs = []string{repo.Head()}
				} else if ps, err := repo.Parents(src.Commit); err == nil {
					revs = ps
				}
				for _, r := range revs {
					if b, err := repo.Show(r, src.Path); err == nil && r != "" {
						lines = append(lines, Lines(b)...)
					}
				}
				before[src.Commit] = lines
			}
			was = strings.TrimSpace(was)
			for _, l := range lines {
				if strings.TrimSpace(l) == was {
					return false
				}
			}
			// One git log -S per line of text: it reads the history.
			key := src.Path + "\x00" + was
			c, ok := committed[key]
			if !ok {
				found, err := repo.Committed(was, src.Path)
				c = err == nil && found
				committed[key] = c
			}
			return c
		},
	}
}

// mayHaveWritten reports whether Blame could attribute any of the added
// lines of file to a recorded edit: the file has a recorded history, or
// a line is one a recorded edit wrote (the pool), or is too short to be
// matched by its text and may take its neighbours' origin.
//
// From the file index, it answers for what may be: a path the file may
// be, a line some path's versions may hold.
func (ix *Index) mayHaveWritten(file string, added []string) bool {
	if lz := ix.lz; lz != nil {
		if len(lz.cat.candidates(file)) > 0 {
			return true
		}
		if len(lz.cat.lines) == 0 {
			return false
		}
	} else {
		if _, ok := ix.lookup(file); ok {
			return true
		}
		if len(ix.pool) == 0 {
			return false
		}
	}
	for _, l := range added {
		t := strings.TrimSpace(l)
		if !distinctive(t) {
			return true
		}
		if _, ok := ix.pool[t]; ok && ix.lz == nil || ix.lz != nil && len(ix.lz.cat.linePaths(t)) > 0 {
			return true
		}
	}
	return false
}
