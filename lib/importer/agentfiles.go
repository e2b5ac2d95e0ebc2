package importer

import (
	"path"
	"strings"

	"github.com/tidwall/gjson"
)

// Files an agent wrote (Gemini CLI, OpenCode, Copilot CLI), from its
// file tools' parameters: a whole-file write gives the file's content; a
// string replacement applied to a file whose content is known (written
// earlier in the session) gives the new content, as the tool computes it:
// the old text must occur once, or as many times as the call says to
// replace. Where the tool's result records the file's content after the
// call (Gemini CLI's resultDisplay.newContent), that is the file's
// content, known before or not. A call that failed or has no result
// changed nothing known. The files whose final content is known are
// outputs, named relative to the session's working directory; a file
// outside it, or an edit of a file whose content the session does not
// show, is said on stderr.

// FileTool names the parameters of a tool that writes files.
type FileTool struct {
	Path    string // the file
	Content string // a whole-file write: its content
	Old     string // a replacement: the text replaced,
	New     string // the text put instead,
	All     string // and how many times (a boolean: all; a number: that many)
	After   string // where the step's metadata.result holds the file's content after the call
}

// agentFiles adds the files the session wrote, whose content is known,
// as outputs (and, for a format that is no agent's session (Format.Session), the last answer
// as final.md beside them).
func (b *Builder) AgentFiles() {
	tools := b.f.FileTools
	known := map[string]string{}
	var order []string
	listed := map[string]bool{}
	learn := func(name, content string) {
		if !listed[name] {
			order, listed[name] = append(order, name), true
		}
		known[name] = content
	}
	unknown, outside := 0, 0
	for _, s := range b.Steps {
		ft, ok := tools[s.Tool]
		if !ok || !s.Resolved || s.Error != nil {
			continue
		}
		params := gjson.ParseBytes(s.Parameters)
		name, ok := b.fileName(params.Get(ft.Path).String())
		if !ok {
			outside++
			continue
		}
		if after := gjson.GetBytes(s.Meta.Get("result"), ft.After); ft.After != "" && after.Type == gjson.String {
			learn(name, after.Str)
			continue
		}
		if ft.Content != "" {
			c := params.Get(ft.Content)
			if c.Type != gjson.String {
				continue
			}
			learn(name, c.Str)
			continue
		}
		have, ok := known[name]
		if !ok {
			unknown++
			continue
		}
		old, repl := params.Get(ft.Old).String(), params.Get(ft.New).String()
		n := strings.Count(have, old)
		times := params.Get(ft.All)
		switch {
		case old == "" || n == 0:
			b.Warn("an edit of %s replaces text its known content does not hold: %s is no output", name, name)
			delete(known, name)
		case n == 1 || times.Type == gjson.True || times.Type == gjson.Number && times.Int() == int64(n):
			known[name] = strings.ReplaceAll(have, old, repl)
		default:
			b.Warn("an edit of %s replaces text its known content holds %d times: %s is no output", name, n, name)
			delete(known, name)
		}
	}
	var outs []Output
	for _, name := range order {
		if c, ok := known[name]; ok {
			outs = append(outs, Output{Name: name, Content: c})
		}
	}
	if len(outs) > 0 && strings.TrimSpace(b.Last) != "" && !b.f.Session {
		outs = append(outs, Output{Name: FinalName, Content: b.Last})
	}
	b.Outputs = append(b.Outputs, outs...)
	if outside > 0 {
		b.Warn("%d file write(s) outside the session's working directory (or with none recorded): they are steps, not outputs", outside)
	}
	if unknown > 0 {
		b.Warn("%d edit(s) of files whose content the session does not show: they are steps, not outputs", unknown)
	}
}

// fileName names a file as an output: relative to the working directory.
func (b *Builder) fileName(p string) (string, bool) {
	if rel, ok := relPath(p, b.Roots); ok {
		p = rel
	}
	p = path.Clean(p)
	if !CleanRelative(p) || p == "." {
		return "", false
	}
	return p, true
}
