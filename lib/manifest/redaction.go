package manifest

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// RedactionKey is the member of a pack's top-level metadata (and of a
// log's) that says the pack was redacted (ctx-redact, ctx-pack --redact).
const RedactionKey = "redaction"

// Redaction is what metadata.redaction records: how many marks
// ([REDACTED:<rule>:<sha256 prefix>]) the pack holds, and the scanner
// whose rules found the secrets they replace.
type Redaction struct {
	Marks   int    `json:"marks"`
	Scanner string `json:"scanner"`
}

// RedactionOf returns the redaction record of top-level metadata, ok
// false when there is none.
func RedactionOf(metadata jsontext.Value) (r Redaction, ok bool) {
	if len(metadata) == 0 {
		return r, false
	}
	var meta map[string]jsontext.Value
	if json.Unmarshal(metadata, &meta) != nil {
		return r, false
	}
	raw, ok := meta[RedactionKey]
	if !ok || json.Unmarshal(raw, &r) != nil {
		return r, false
	}
	return r, true
}
