package blame

import (
	"strings"
	"testing"
)

// FuzzAttribute checks the attribution of any file against any history:
// one attribution per line, an origin exactly for agent and mixed lines,
// and every line of the last version that the file keeps as it is (and
// that no other line repeats, long enough to be matched by its text)
// attributed to the step that wrote it.
func FuzzAttribute(f *testing.F) {
	f.Add("a\nb\nc\n", "x\na\nb\n", "a\nb2\nb\n")
	f.Add("", "only line of the writer\n", "only line of the writer\n")
	f.Add("func f() {\n\treturn 1\n}\n", "func f() {\n\treturn 2\n}\n", "  func f() {\n\treturn 2 + 1\n}\n// extra\n")
	f.Fuzz(func(t *testing.T, base, written, current string) {
		o := &Origin{Pack: "sha256:" + strings.Repeat("a", 64), Step: 1, Tool: "Write"}
		v := fromText(base)
		v, added := v.next(splitText(written), o, nil)
		p := pool{}
		p.add(added, &event{origin: o})
		cur := splitText(current)
		got := attribute([]version{v}, cur, p, nil)
		if len(got) != len(cur) {
			t.Fatalf("%d attributions for %d lines", len(got), len(cur))
		}
		count := map[string]int{}
		for _, l := range cur {
			count[strings.TrimSpace(l)]++
		}
		last := map[string]*Origin{}
		for _, l := range v {
			// Lines too short to match by text may lose to another
			// alignment; longer ones are found wherever they are.
			if t := strings.TrimSpace(l.text); count[t] == 1 && distinctive(t) {
				last[l.text] = l.origin
			}
		}
		for i, a := range got {
			switch {
			case a.By == ByUnknown && a.Origin != nil, a.By != ByUnknown && a.Origin == nil:
				t.Fatalf("line %d: by %s with origin %v", i+1, a.By, a.Origin)
			case a.By != ByAgent && a.By != ByMixed && a.By != ByUnknown:
				t.Fatalf("line %d: by %q", i+1, a.By)
			}
			if want, ok := last[cur[i]]; ok && want != nil && a.Origin != want {
				t.Errorf("line %d %q: origin %v, want the writer's", i+1, cur[i], a.Origin)
			}
		}
	})
}
