package blame

import (
	"strings"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/git"
)

// TrailerKey is the commit trailer that links a commit to a pack:
// "Ctx-Pack: ctx://<hex>". A hash reveals nothing of the session; reading
// it needs the pack.
const TrailerKey = "Ctx-Pack"

// CommitPacks returns the packs of the commits: those their Ctx-Pack
// trailers name, and those whose recorded edits wrote lines the commits
// add (found so even when a history edit stripped the trailers), each
// with the number of added lines it wrote (0 for a pack known only by a
// trailer).
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
		for file, lines := range added {
			content, err := repo.Show(c, file)
			if err != nil {
				return nil, err
			}
			for p, n := range ix.PackLines(file, content, lines) {
				if d, err := digest.Parse(p); err == nil {
					found[d] += n
				}
			}
		}
	}
	return found, nil
}
