package blame

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/edit"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// packEdits is what blame needs of one pack: the steps that edited files
// and the files the session saw whole before editing them. It is derived
// from the manifest alone, so it is cached by the pack's hash.
type packEdits struct {
	Pack    string     `json:"pack"`
	Created string     `json:"created"`
	Steps   int        `json:"steps"`
	Session string     `json:"session,omitzero"`
	Cwd     string     `json:"cwd,omitzero"` // the session's directory, as recorded
	Edits   []editStep `json:"edits,omitzero"`
	Bases   []base     `json:"bases,omitzero"`
	Views   []view     `json:"views,omitzero"`
	// Partial are the files the session saw in part (content refs):
	// with Bases, the lines it found there, never its own.
	Partial []string `json:"partial,omitzero"`
}

// editStep is a step that edited files, with the facts an origin names:
// an edit tool's step (Parameters), or a step whose changes on disk were
// observed (Observed: a shell command's).
type editStep struct {
	Step       int                 `json:"step"`
	Tool       string              `json:"tool"`
	Time       string              `json:"time,omitzero"`
	Model      string              `json:"model,omitzero"`
	Agent      string              `json:"agent,omitzero"`
	Prompt     *int                `json:"prompt,omitzero"`
	Parameters jsontext.Value      `json:"parameters"`
	Observed   []manifest.Observed `json:"observed,omitzero"`

	// Set when the step comes from the file index (lazy): its key
	// (editKey's digest), the paths it changed, and whether its
	// parameters are loaded.
	lazy, loaded bool
	key          string
	paths        []string
}

// base is a file the session saw whole: its first view of it, and when
// a step first looked at it ("" when no step is known to have).
type base struct {
	Path       string `json:"path"`
	ContentRef string `json:"content_ref"`
	Time       string `json:"time,omitzero"`
}

// view is the whole content of a file as a step of the session saw it:
// a whole Read's answer, or the originalFile an edit's result records
// (Before: as it was just before that step).
type view struct {
	Path   string `json:"path"` // as the step names it
	Time   string `json:"time,omitzero"`
	Step   int    `json:"step"`
	Before bool   `json:"before,omitzero"`
	Text   string `json:"text"`
}

// seenAt returns when the session first saw the file at path (relative
// to its directory) as content: the first step whose recorded result
// shows it so, else the first step that names the path (a Read, a shell
// command that printed it); "" when none does.
func seenAt(m *manifest.Manifest, pe *packEdits, path, content string) string {
	for _, v := range pe.Views {
		if p, ok := relative(v.Path, pe.Cwd); ok && p == path && slices.Equal(splitText(v.Text), splitText(content)) {
			return v.Time
		}
	}
	for _, s := range m.Steps {
		if s.Type != manifest.LLMCall && s.Timestamp != "" && names(gjson.ParseBytes(s.Parameters), path, pe.Cwd) {
			return s.Timestamp
		}
	}
	return ""
}

// names reports whether a string of parameters v names path: as a path
// of its own, or as a word of a command.
func names(v gjson.Result, path, cwd string) bool {
	found := false
	v.ForEach(func(_, x gjson.Result) bool {
		switch {
		case x.IsObject(), x.IsArray():
			found = names(x, path, cwd)
		case x.Type == gjson.String:
			p, ok := relative(x.Str, cwd)
			found = ok && p == path || inCommand(x.Str, path) || cwd != "" && inCommand(x.Str, strings.TrimSuffix(cwd, "/")+"/"+path)
		}
		return !found
	})
	return found
}

// inCommand reports whether s holds path as a whole word: not preceded
// or followed by a character a path may hold.
func inCommand(s, path string) bool {
	pathChar := func(c byte) bool {
		return c == '/' || c == '.' || c == '-' || c == '_' || c == '~' || '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'z'
	}
	for i := 0; ; {
		j := strings.Index(s[i:], path)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(path)
		if (j == 0 || !pathChar(s[j-1])) && (end == len(s) || !pathChar(s[end])) {
			return true
		}
		i = j + 1
	}
}

// stepView returns the whole file a tool step's recorded result shows
// (Claude Code's toolUseResult), if any. Only a Read's and an edit's
// result can: no other step's result (a shell command's output) is
// read, and the fields of a Read's are read in one pass over it.
func stepView(s manifest.Step) (view, bool) {
	isRead := s.Tool == "Read"
	if !isRead && !edit.Is(s.Tool) || s.Error != nil {
		return view{}, false
	}
	path := gjson.GetBytes(s.Parameters, "file_path")
	if path.Type != gjson.String {
		return view{}, false
	}
	r := gjson.GetBytes(s.Metadata, "result.toolUseResult")
	if !r.IsObject() {
		return view{}, false
	}
	v := view{Path: path.Str, Time: s.Timestamp, Step: s.Index}
	if !isRead {
		o := r.Get("originalFile")
		if o.Type != gjson.String {
			return view{}, false
		}
		v.Text, v.Before = o.Str, true
		return v, true
	}
	rm := members(r, "type", "file")
	fm := members(rm[1], "content", "startLine", "numLines", "totalLines")
	if rm[0].String() != "text" || fm[0].Type != gjson.String || fm[1].Int() > 1 || fm[2].Int() != fm[3].Int() {
		return view{}, false
	}
	v.Text = fm[0].Str
	return v, true
}

// members returns the members of object o named names, in one pass
// over it (the first of a name, as gjson's Get finds it).
func members(o gjson.Result, names ...string) []gjson.Result {
	out := make([]gjson.Result, len(names))
	o.ForEach(func(k, x gjson.Result) bool {
		if i := slices.Index(names, k.Str); i >= 0 && !out[i].Exists() {
			out[i] = x
		}
		return true
	})
	return out
}

// edits extracts a pack's edit steps, and the lines of its inputs from
// the store.
func edits(s *store.Store, m *manifest.Manifest) (*packEdits, error) {
	pe := &packEdits{Pack: m.Hash.String(), Created: m.Created, Steps: len(m.Steps)}
	// GetBytes copies what it returns: the strings kept (the catalog
	// keeps the session of every pack) hold none of the metadata.
	pe.Session = gjson.GetBytes(m.Metadata, "session.sessionId").String()
	if pe.Session == "" {
		pe.Session = gjson.GetBytes(m.Metadata, "session.id").String()
	}
	pe.Cwd = gjson.GetBytes(m.Metadata, "session.cwd").String()
	type promptAt struct {
		index int
		t     time.Time
	}
	var prompts []promptAt
	gjson.GetBytes(m.Metadata, "prompts").ForEach(func(_, p gjson.Result) bool {
		t, err := time.Parse(time.RFC3339Nano, p.Get("timestamp").String())
		if err == nil && p.Get("index").Exists() && int(p.Get("index").Int()) < len(m.Prompts) {
			prompts = append(prompts, promptAt{int(p.Get("index").Int()), t})
		}
		return true
	})
	slices.SortStableFunc(prompts, func(a, b promptAt) int { return a.t.Compare(b.t) })
	model := map[string]string{} // by agent: the model of its last model call
	for _, s := range m.Steps {
		if v, ok := stepView(s); ok {
			pe.Views = append(pe.Views, v)
		}
		if s.Type == manifest.LLMCall {
			if id := gjson.GetBytes(s.Metadata, "model").String(); id != "" {
				model[s.Agent] = id
			}
			continue
		}
		// A failed shell command may still have changed files: what was
		// observed after it is what it did.
		observed := !edit.Is(s.Tool) && len(s.Observed) > 0
		if !observed && (!edit.Is(s.Tool) || s.Error != nil) {
			continue
		}
		// A step's parameters are a slice of the manifest's bytes: a
		// copy keeps none of the manifest (New keeps every pack's edits).
		e := editStep{Step: s.Index, Tool: s.Tool, Time: s.Timestamp, Agent: s.Agent, Parameters: slices.Clone(s.Parameters)}
		if observed {
			e.Observed = s.Observed
		}
		e.Model = model[s.Agent]
		if e.Model == "" {
			e.Model = m.Model.Identifier
		}
		if t, err := time.Parse(time.RFC3339Nano, s.Timestamp); err == nil {
			for _, p := range prompts {
				if p.t.After(t) {
					break
				}
				i := p.index
				e.Prompt = &i
			}
		}
		pe.Edits = append(pe.Edits, e)
	}
	for _, in := range m.Inputs {
		if in.Seen == manifest.SeenName || in.ContentRef.IsZero() {
			continue
		}
		if len(pe.Edits) == 0 {
			continue // nothing to tell apart from what it wrote
		}
		b, err := s.Get(in.ContentRef)
		if err != nil {
			return nil, fmt.Errorf("pack %s: input %s: %w", pe.Pack, in.Name, err)
		}
		if in.Seen == manifest.SeenWhole {
			pe.Bases = append(pe.Bases, base{Path: in.Name, ContentRef: in.ContentRef.String(), Time: seenAt(m, pe, in.Name, string(b))})
		} else {
			pe.Partial = append(pe.Partial, in.ContentRef.String())
		}
	}
	return pe, nil
}
