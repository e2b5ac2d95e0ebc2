// Package taglist prints the tags of a store, as ctx-tag and ctx-log
// --tags list them: one {"hash","tag","uri"} line per tag, by name, or a
// NAME HASH table for --human.
package taglist

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Print lists the tags of s on env's stdout, warns of a tag naming no pack
// of s, and says "no tags found" on stderr when there are none. It returns
// the tags that could not be read, for the caller to report.
func Print(env *cli.Env, s *store.Store) (problems []error, err error) {
	tags, probs, err := s.Tags()
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, t := range tags {
		if ok, err := s.HasPack(t.Target); err == nil && !ok {
			env.Warnf("tag %s names %s, which is not a pack in this store", t.Name, t.Target)
		}
		if env.Human() {
			fmt.Fprintf(tw, "%s\t%s\n", t.Name, t.Target.Short())
			continue
		}
		if err := env.Result(Line(t.Name, t.Target)); err != nil {
			return nil, err
		}
	}
	if env.Human() {
		tw.Flush()
		if err := env.Text(b.String()); err != nil {
			return nil, err
		}
	}
	if len(tags) == 0 && len(probs) == 0 {
		env.Infof("no tags found")
	}
	return probs, nil
}

// Line is the JSON line of tag name naming pack d.
func Line(name string, d digest.Digest) map[string]any {
	return map[string]any{"hash": d.String(), "tag": name, "uri": d.URI()}
}
