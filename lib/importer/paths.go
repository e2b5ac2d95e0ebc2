package importer

import (
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"
)

// Paths. Claude Code and Codex record absolute paths under the session's
// working directory. In a step's parameters, a value that is such a path
// (the whole value of a member named like a path: file_path, path, cwd,
// workdir, …) becomes relative to the directory, so that the pack does
// not depend on where the session ran. Nothing else is rewritten: prompts,
// outputs and free-text parameters (a shell command) are evidence and stay
// byte-exact; the directory itself is kept in the log's metadata.

// pathKey reports whether a parameter named k holds a path.
func pathKey(k string) bool {
	k = strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(k))
	for _, suffix := range []string{"path", "paths", "dir", "dirs", "directory", "directories", "cwd", "workdir", "file", "files", "folder"} {
		if strings.HasSuffix(k, suffix) {
			return true
		}
	}
	return false
}

// relPath makes p relative to one of roots when p is that root ("."), or
// a path under it; otherwise it returns p and false.
func relPath(p string, roots []string) (string, bool) {
	for _, r := range roots {
		sep := byte('/')
		if strings.IndexByte(r, '/') < 0 {
			sep = '\\'
		}
		switch {
		case p == r || p == r+string(sep):
			return ".", true
		case len(p) > len(r)+1 && strings.HasPrefix(p, r) && p[len(r)] == sep:
			return strings.TrimLeft(p[len(r)+1:], string(sep)), true
		}
	}
	return p, false
}

// relativeParams returns params with its path-valued members made
// relative to the working directories, or params itself when none is.
func (b *builder) relativeParams(params json.RawMessage) json.RawMessage {
	if len(b.roots) == 0 || len(params) == 0 {
		return params
	}
	v := gjson.ParseBytes(params)
	if !v.IsObject() {
		return params
	}
	out, changed := b.relativeValue(v, false)
	if !changed {
		return params
	}
	return out
}

// relativeValue rewrites v: strings when inPath (they are the value of a
// path member, or its elements), objects member by member.
func (b *builder) relativeValue(v gjson.Result, inPath bool) (json.RawMessage, bool) {
	switch {
	case v.Type == gjson.String && inPath:
		if rel, ok := relPath(v.Str, b.roots); ok {
			return quote(rel), true
		}
	case v.IsObject():
		var o obj
		changed := false
		each(v, func(k, m gjson.Result) bool {
			nv, ok := b.relativeValue(m, pathKey(k.Str))
			changed = changed || ok
			o = append(o, member{k.Str, nv})
			return true
		})
		if changed {
			return o.raw(), true
		}
	case v.IsArray() && inPath:
		var l list
		changed := false
		each(v, func(_, e gjson.Result) bool {
			nv, ok := b.relativeValue(e, e.Type == gjson.String)
			changed = changed || ok
			l = append(l, nv)
			return true
		})
		if changed {
			return l.raw(), true
		}
	}
	return raw(v), false
}
