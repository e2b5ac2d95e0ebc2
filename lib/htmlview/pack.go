package htmlview

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
)

// packPage is the view of one pack; Replay is set on a replay page.
type packPage struct {
	Hash, Short, URI, Parent string
	Created                  Text
	Model                    Text
	Params                   *JSON
	OS, Runtime              Text
	Tools                    []kv
	EnvMeta                  *JSON
	Metadata                 *JSON

	Counts  []kv // "what": "how many"
	Bytes   string
	System  *Content
	Prompts []promptView
	Steps   []stepView
	Inputs  []fileView
	Outputs []outputView

	Replay *replayView
}

type kv struct {
	K, V Text
}

type promptView struct {
	Role    Text
	Content *Content
}

type fileView struct {
	Name    Text
	Content *Content
}

type outputView struct {
	Name       Text
	Content    *Content
	Confidence Text
	Notes      Text
}

// stepView is one row of the timeline.
type stepView struct {
	Index         int
	Type, Tool    Text
	Params        *JSON
	Output        *Content
	Deterministic bool
	Timestamp     Text
	Delta         string
	Metadata      *JSON
	Replay        *stepReplay
}

// Pack renders the page of pack m, reading its content from objs.
func Pack(m *manifest.Manifest, objs Objects, opt Options) ([]byte, error) {
	p, err := buildPack(m, objs, opt)
	if err != nil {
		return nil, err
	}
	return render("ctx pack "+shortRef(m.Hash.String()), page{Pack: p})
}

func buildPack(m *manifest.Manifest, objs Objects, opt Options) (*packPage, error) {
	p := &packPage{
		Hash:    m.Hash.String(),
		Short:   shortRef(m.Hash.String()),
		URI:     m.Hash.URI(),
		Created: vis(m.Created),
		Model:   vis(m.Model.Identifier),
		Params:  jsonView(m.Model.Parameters, opt),
		OS:      vis(m.Environment.OS),
		Runtime: vis(m.Environment.Runtime),
		EnvMeta: jsonView(m.Environment.Metadata, opt),
	}
	if !m.Parent.IsZero() {
		p.Parent = m.Parent.String()
	}
	for _, k := range slices.Sorted(maps.Keys(m.Environment.ToolVersions)) {
		p.Tools = append(p.Tools, kv{vis(k), vis(m.Environment.ToolVersions[k])})
	}
	p.Metadata = jsonView(m.Metadata, opt)

	// Each object once: the same content may appear in several places.
	cache := map[digest.Digest]*Content{}
	get := func(d digest.Digest) (*Content, error) {
		if c, ok := cache[d]; ok || d.IsZero() {
			return c, nil
		}
		c, err := content(objs, d, opt)
		if err != nil {
			return nil, err
		}
		cache[d] = c
		return c, nil
	}
	var err error
	if p.System, err = get(m.SystemPrompt); err != nil {
		return nil, err
	}
	for _, pr := range m.Prompts {
		c, err := get(pr.ContentRef)
		if err != nil {
			return nil, err
		}
		p.Prompts = append(p.Prompts, promptView{vis(pr.Role), c})
	}
	for _, f := range m.Inputs {
		c, err := get(f.ContentRef)
		if err != nil {
			return nil, err
		}
		p.Inputs = append(p.Inputs, fileView{vis(f.Name), c})
	}
	prev, havePrev := parseTime(m.Created)
	for i := range m.Steps {
		st := &m.Steps[i]
		v := stepView{
			Index:         st.Index,
			Type:          vis(st.Type),
			Tool:          vis(st.Tool),
			Params:        jsonView(st.Parameters, opt),
			Deterministic: st.Deterministic,
			Timestamp:     vis(st.Timestamp),
			Metadata:      jsonView(st.Metadata, opt),
		}
		if t, ok := parseTime(st.Timestamp); ok {
			if havePrev {
				v.Delta = delta(t.Sub(prev))
			}
			prev, havePrev = t, true
		}
		if v.Output, err = get(st.OutputRef); err != nil {
			return nil, err
		}
		p.Steps = append(p.Steps, v)
	}
	for _, o := range m.Outputs {
		c, err := get(o.ContentRef)
		if err != nil {
			return nil, err
		}
		p.Outputs = append(p.Outputs, outputView{vis(o.Name), c, vis(o.Confidence), vis(o.Notes)})
	}
	var total int64
	for _, c := range cache {
		if c != nil {
			total += c.Size
		}
	}
	p.Bytes = fmt.Sprintf("%s in %s", size(total), plural(len(cache), "object"))
	p.Counts = counts(m)
	return p, nil
}

// counts summarises the steps by type and tool, determinism, inputs and
// outputs.
func counts(m *manifest.Manifest) []kv {
	byType, byTool := map[string]int{}, map[string]int{}
	det := 0
	for _, st := range m.Steps {
		byType[st.Type]++
		if st.Tool != "" {
			byTool[st.Tool]++
		}
		if st.Deterministic {
			det++
		}
	}
	out := []kv{{vis("steps"), vis(fmt.Sprintf("%d: %d deterministic, %d not", len(m.Steps), det, len(m.Steps)-det))}}
	if len(byType) > 0 {
		out = append(out, kv{vis("step types"), vis(tally(byType))})
	}
	if len(byTool) > 0 {
		out = append(out, kv{vis("tools used"), vis(tally(byTool))})
	}
	out = append(out, kv{vis("files"), vis(fmt.Sprintf("%s, %s, %s",
		plural(len(m.Prompts), "prompt"), plural(len(m.Inputs), "input"), plural(len(m.Outputs), "output")))})
	return out
}

// tally lists counts, most frequent first, then by name.
func tally(n map[string]int) string {
	keys := slices.Collect(maps.Keys(n))
	sort.Slice(keys, func(i, j int) bool {
		if n[keys[i]] != n[keys[j]] {
			return n[keys[i]] > n[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, n[k])
	}
	return strings.Join(parts, ", ")
}
