package packgen

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/execlog"
	"github.com/ctx-tools/ctx/lib/store"
)

// Edits fills s with n packs of coding sessions over a project of 100
// small files and one big file, big.go, of lines lines: session 0 writes
// big.go, every tenth session reads it whole and inserts a line with an
// Edit, and every session writes and edits a small file of its own. It
// returns the packs in order and big.go as the last session left it:
// the workload of ctx-blame's benchmarks.
func Edits(s *store.Store, n, lines int) ([]digest.Digest, []byte, error) {
	s.SetSyncMode(store.SyncNone)
	var big strings.Builder
	for i := range lines {
		fmt.Fprintf(&big, "\tx%d := compute(%d, \"line %d of the big file\")\n", i, i, i)
	}
	content := big.String()
	out := make([]digest.Digest, 0, n)
	for i := range n {
		created := fmt.Sprintf("2026-01-%02dT%02d:%02d:00Z", 1+i/1440%28, i/60%24, i%60)
		at := func(k int) string { return strings.TrimSuffix(created, "Z") + fmt.Sprintf(".%03dZ", k) }
		f := fmt.Sprintf("pkg%d/file%d.go", i%10, i%100)
		body := fmt.Sprintf("package pkg%d\n\n// F%d is session %d's.\nfunc F%d() int { return %d }\n", i%10, i, i, i, i)
		steps := []any{
			edit(0, "Write", map[string]any{"file_path": f, "content": body}, at(1)),
			edit(1, "Edit", map[string]any{"file_path": f, "old_string": fmt.Sprintf("return %d", i), "new_string": fmt.Sprintf("return %d * 2", i)}, at(2)),
		}
		var inputs []any
		switch {
		case i == 0:
			steps = append(steps, edit(2, "Write", map[string]any{"file_path": "big.go", "content": content}, at(3)))
		case i%10 == 0:
			old := fmt.Sprintf("\tx%d := compute(%d, \"line %d of the big file\")\n", i, i, i)
			add := old + fmt.Sprintf("\ty%d := x%d + 1 // session %d\n", i, i, i)
			inputs = append(inputs, map[string]any{"name": "big.go", "content": content})
			steps = append(steps, edit(2, "Edit", map[string]any{"file_path": "big.go", "old_string": old, "new_string": add}, at(3)))
			content = strings.Replace(content, old, add, 1)
		}
		log := map[string]any{
			"created":  created,
			"model":    map[string]any{"identifier": "claude-sonnet-4-5"},
			"prompts":  []any{map[string]any{"role": "user", "content": fmt.Sprintf("task %d", i)}},
			"steps":    steps,
			"metadata": map[string]any{"session": map[string]any{"sessionId": fmt.Sprintf("session-%d", i), "cwd": "/src/proj"}},
		}
		if inputs != nil {
			log["inputs"] = inputs
		}
		b, err := json.Marshal(log)
		if err != nil {
			return nil, nil, err
		}
		l, err := execlog.Parse(b, execlog.Options{})
		if err != nil {
			return nil, nil, err
		}
		m, _, err := l.Pack(s)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, m.Hash)
	}
	return out, []byte(content), nil
}

func edit(i int, tool string, params map[string]any, at string) map[string]any {
	return map[string]any{"index": i, "type": "tool_call", "tool": tool, "parameters": params, "output": "ok", "deterministic": false, "timestamp": at}
}
