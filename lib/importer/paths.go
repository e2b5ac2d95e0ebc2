package importer

import (
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/wspath"
)

// Paths. Claude Code and Codex record absolute paths under the session's
// working directory. In a step's parameters, a value that is such a path
// (the whole value of a member named like a path: file_path, path, cwd,
// workdir, …) becomes relative to the directory, so that the pack does
// not depend on where the session ran. Nothing else is rewritten: prompts,
// outputs and free-text parameters (a shell command) are evidence and stay
// byte-exact; the directory itself is kept in the log's metadata.

// pathKey reports whether a parameter named k holds a path (wspath.Key).
func pathKey(k string) bool { return wspath.Key(k) }

// relPath makes p relative to one of roots when p is that root ("."), or
// a path under it; otherwise it returns p and false.
func relPath(p string, roots []string) (string, bool) {
	for _, r := range roots {
		if rel, ok := pathUnder(p, r); ok {
			return rel, true
		}
	}
	return p, false
}

// pathUnder returns p relative to dir, its names separated by "/", when
// p is dir (".") or a path under it. Paths are compared in dir's own
// syntax: for a Windows directory (a drive letter, a UNC path, or a path
// with "\" and no "/") both "\" and "/" separate names and the drive
// letter's case does not matter, so C:\Users\x\proj\a.py and
// c:/Users/x/proj/a.py are under C:\Users\x\proj and become a.py.
func pathUnder(p, dir string) (string, bool) {
	if windowsPath(dir) {
		p, dir = windowsSlashes(p), windowsSlashes(dir)
	}
	dir = strings.TrimRight(dir, "/")
	switch {
	case dir == "":
	case p == dir || p == dir+"/":
		return ".", true
	case len(p) > len(dir)+1 && strings.HasPrefix(p, dir) && p[len(dir)] == '/':
		return strings.TrimLeft(p[len(dir)+1:], "/"), true
	}
	return "", false
}

// windowsPath reports whether dir is written in Windows syntax: it starts
// with a drive letter ("C:\", "C:/"), is a UNC path ("\\server\share"), or
// separates its names with "\" alone.
func windowsPath(dir string) bool {
	switch {
	case len(dir) >= 3 && dir[1] == ':' && (dir[2] == '\\' || dir[2] == '/') && ('a' <= dir[0] && dir[0] <= 'z' || 'A' <= dir[0] && dir[0] <= 'Z'):
		return true
	case strings.HasPrefix(dir, `\\`):
		return true
	}
	return strings.IndexByte(dir, '\\') >= 0 && strings.IndexByte(dir, '/') < 0
}

// windowsSlashes writes a Windows path with "/" between its names and its
// drive letter in upper case, the one form paths are compared in.
func windowsSlashes(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if len(p) >= 2 && p[1] == ':' && 'a' <= p[0] && p[0] <= 'z' {
		p = string(p[0]-'a'+'A') + p[1:]
	}
	return p
}

// relativeParams returns params with its path-valued members made
// relative to the working directories, or params itself when none is.
func (b *Builder) relativeParams(params json.RawMessage) json.RawMessage {
	if len(b.Roots) == 0 || len(params) == 0 {
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
func (b *Builder) relativeValue(v gjson.Result, inPath bool) (json.RawMessage, bool) {
	switch {
	case v.Type == gjson.String && inPath:
		if rel, ok := relPath(v.Str, b.Roots); ok {
			return Quote(rel), true
		}
	case v.IsObject():
		var o Obj
		changed := false
		Each(v, func(k, m gjson.Result) bool {
			nv, ok := b.relativeValue(m, pathKey(k.Str))
			changed = changed || ok
			o = append(o, Member{k.Str, nv})
			return true
		})
		if changed {
			return o.Raw(), true
		}
	case v.IsArray() && inPath:
		var l List
		changed := false
		Each(v, func(_, e gjson.Result) bool {
			nv, ok := b.relativeValue(e, e.Type == gjson.String)
			changed = changed || ok
			l = append(l, nv)
			return true
		})
		if changed {
			return l.Raw(), true
		}
	}
	return Raw(v), false
}

// CleanRelative reports whether p is a clean relative path: no root, no
// backslash, no NUL, no "..".
func CleanRelative(p string) bool {
	return p != "" && !strings.HasPrefix(p, "/") && !strings.Contains(p, "\\") && !strings.Contains(p, "\x00") &&
		!strings.HasPrefix(p, "../") && !strings.Contains(p, "/../") && p != ".." && !strings.HasSuffix(p, "/..")
}
