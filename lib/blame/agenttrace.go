package blame

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
)

// AgentTraceVersion is the version of the Agent Trace specification
// (github.com/cursor/agent-trace) that TraceRecord follows.
const AgentTraceVersion = "0.1.0"

// TraceRecord is an Agent Trace record: the files, and for each the
// conversations (here: packs) that wrote line ranges of it.
type TraceRecord struct {
	Version   string         `json:"version"`
	ID        string         `json:"id"`
	Timestamp string         `json:"timestamp"`
	VCS       *TraceVCS      `json:"vcs,omitzero"`
	Tool      *TraceTool     `json:"tool,omitzero"`
	Files     []TraceFile    `json:"files"`
	Metadata  map[string]any `json:"metadata,omitzero"`
}

// TraceVCS names the revision the ranges' line numbers refer to.
type TraceVCS struct {
	Type     string `json:"type"`
	Revision string `json:"revision"`
}

// TraceTool names the tool that wrote the record.
type TraceTool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// TraceFile is one file's attribution.
type TraceFile struct {
	Path          string              `json:"path"`
	Conversations []TraceConversation `json:"conversations"`
}

// TraceConversation is the ranges one pack wrote, or the ranges nobody
// recorded (no URL, contributor "unknown").
type TraceConversation struct {
	URL         string             `json:"url,omitzero"`
	Contributor *TraceContributor  `json:"contributor,omitzero"`
	Ranges      []TraceRange       `json:"ranges"`
	Related     []TraceRelatedLink `json:"related,omitzero"`
}

// TraceContributor is who wrote a conversation's or a range's lines.
type TraceContributor struct {
	Type    string `json:"type"`
	ModelID string `json:"model_id,omitzero"`
}

// TraceRange is a run of lines, 1-based and inclusive, with the hash of
// its content.
type TraceRange struct {
	Start       int               `json:"start_line"`
	End         int               `json:"end_line"`
	ContentHash string            `json:"content_hash,omitzero"`
	Contributor *TraceContributor `json:"contributor,omitzero"`
}

// TraceRelatedLink links a conversation to one of its parts: here, each
// step that wrote lines (ctx://<pack>#steps/<index>).
type TraceRelatedLink struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// TraceInput is one blamed file for AgentTrace: its path relative to the
// work tree's root, its lines, and their attribution.
type TraceInput struct {
	Path  string
	Text  []string
	Lines []Line
}

// AgentTrace returns the Agent Trace record of the files at revision (a
// git commit, "" when unknown), stamped with timestamp (RFC 3339). The
// record's id is a UUID (version 8, RFC 9562) made from the SHA-256 of
// the rest of the record, so the same attribution gives the same id.
//
// Each pack is a conversation whose URL is its ctx:// URI; ranges an agent
// wrote and a person changed are "mixed"; lines no recorded edit wrote
// form a conversation of contributor "unknown" with no URL. Model ids are
// given as provider/model when the provider is evident from the name
// (claude-… anthropic, gpt-…/o1…/o3…/o4…/codex-… openai, gemini-…
// google), else as recorded.
func AgentTrace(files []TraceInput, revision, timestamp, version string) TraceRecord {
	rec := TraceRecord{Version: AgentTraceVersion, Timestamp: timestamp, Tool: &TraceTool{Name: "ctx", Version: version}}
	if revision != "" {
		rec.VCS = &TraceVCS{Type: "git", Revision: revision}
	}
	for _, f := range files {
		tf := TraceFile{Path: f.Path, Conversations: []TraceConversation{}}
		byPack := map[string]int{} // index in tf.Conversations
		steps := map[string]map[int]bool{}
		for _, r := range Ranges(f.Path, f.Lines) {
			tr := TraceRange{Start: r.Start, End: r.End, ContentHash: contentHash(f.Text[r.Start-1 : r.End])}
			key := r.Pack
			i, ok := byPack[key]
			if !ok {
				c := TraceConversation{Ranges: []TraceRange{}}
				if r.Pack == "" {
					c.Contributor = &TraceContributor{Type: "unknown"}
				} else {
					c.URL = r.URI
					c.Contributor = &TraceContributor{Type: "ai", ModelID: ModelID(r.Model)}
					steps[key] = map[int]bool{}
				}
				i = len(tf.Conversations)
				byPack[key] = i
				tf.Conversations = append(tf.Conversations, c)
			}
			c := &tf.Conversations[i]
			if r.Pack != "" {
				if r.By == ByMixed || ModelID(r.Model) != c.Contributor.ModelID {
					tr.Contributor = &TraceContributor{Type: "ai", ModelID: ModelID(r.Model)}
					if r.By == ByMixed {
						tr.Contributor.Type = "mixed"
					}
				}
				if !steps[key][*r.Step] {
					steps[key][*r.Step] = true
					c.Related = append(c.Related, TraceRelatedLink{Type: "step", URL: fmt.Sprintf("%s#steps/%d", r.URI, *r.Step)})
				}
			}
			c.Ranges = append(c.Ranges, tr)
		}
		for i := range tf.Conversations {
			slices.SortFunc(tf.Conversations[i].Related, func(a, b TraceRelatedLink) int { return strings.Compare(a.URL, b.URL) })
		}
		rec.Files = append(rec.Files, tf)
	}
	if rec.Files == nil {
		rec.Files = []TraceFile{}
	}
	b, _ := json.Marshal(rec, json.Deterministic(true))
	sum := sha256.Sum256(b)
	sum[6] = sum[6]&0x0f | 0x80 // version 8
	sum[8] = sum[8]&0x3f | 0x80 // RFC 9562 variant
	h := hex.EncodeToString(sum[:16])
	rec.ID = h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
	return rec
}

// contentHash is "sha256:<hex>" of the lines, each ended by a newline.
func contentHash(lines []string) string {
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// ModelID returns a model identifier in the models.dev form
// provider/model where the provider is evident from the name.
func ModelID(id string) string {
	if id == "" || strings.Contains(id, "/") {
		return id
	}
	l := strings.ToLower(id)
	switch {
	case strings.HasPrefix(l, "claude"):
		return "anthropic/" + id
	case strings.HasPrefix(l, "gpt-"), strings.HasPrefix(l, "codex-"), len(l) > 1 && l[0] == 'o' && strings.ContainsAny(l[1:2], "134"):
		return "openai/" + id
	case strings.HasPrefix(l, "gemini"):
		return "google/" + id
	}
	return id
}
