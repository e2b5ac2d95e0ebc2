package manifest

import "github.com/tidwall/gjson"

// Session returns the id of the agent session m is a snapshot of, as the
// importers record it in metadata.session: Claude Code's sessionId, or
// Codex's id. It is "" for a pack that records no session. Packing a
// session again as it grows gives a new snapshot of the same session.
func (m *Manifest) Session() string {
	if len(m.Metadata) == 0 {
		return ""
	}
	s := gjson.GetBytes(m.Metadata, "session")
	if !s.IsObject() {
		return ""
	}
	for _, k := range []string{"sessionId", "id"} {
		if v := s.Get(k); v.Type == gjson.String && v.Str != "" {
			return v.Str
		}
	}
	return ""
}

// Snapshot reports whether m is a snapshot of an agent session: a pack
// that records its session and was not forked from another (a fork has a
// parent, and is a pack of its own, not a later state of the session).
func (m *Manifest) Snapshot() bool { return m.Parent.IsZero() && m.Session() != "" }
