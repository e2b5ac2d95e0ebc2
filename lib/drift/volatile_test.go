package drift

import (
	"testing"

	"github.com/ctx-tools/ctx/lib/canon"
)

// The keys are those the importers record from real logs (Claude Code,
// Codex, OpenTelemetry, LangSmith, Inspect).
func TestVolatile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		path canon.Path
		want bool
	}{
		{canon.Path{"metadata", "session", "sessionId"}, true},
		{canon.Path{"metadata", "session", "id"}, true},
		{canon.Path{"steps", 3, "metadata", "uuid"}, true},
		{canon.Path{"steps", 3, "metadata", "parentUuid"}, true},
		{canon.Path{"steps", 3, "metadata", "requestId"}, true},
		{canon.Path{"steps", 3, "metadata", "result", "sourceToolAssistantUUID"}, true},
		{canon.Path{"steps", 3, "metadata", "call_id"}, true},
		{canon.Path{"steps", 3, "metadata", "result_timestamp"}, true},
		{canon.Path{"steps", 3, "metadata", "merged_records", 0, "timestamp"}, true},
		{canon.Path{"steps", 3, "metadata", "content", 0, "signature"}, true},
		{canon.Path{"steps", 3, "metadata", "span_id"}, true},
		{canon.Path{"steps", 3, "metadata", "end_time"}, true},
		{canon.Path{"steps", 3, "metadata", "id_2"}, true},
		{canon.Path{"steps", 3, "metadata", "system_fingerprint"}, true},
		{canon.Path{"steps", 3, "metadata", "result", "toolUseResult", "durationMs"}, true},
		{canon.Path{"metadata", "stats", "completed_at"}, true},
		{canon.Path{"metadata", "eval", "created"}, true},
		{canon.Path{"metadata", "session", "slug"}, true},
		{canon.Path{"metadata", "dotted_order"}, true},
		{canon.Path{"metadata", "ids", 2}, true},
		// Values the same in every run of the same work stay compared.
		{canon.Path{"metadata", "model_id"}, false},
		{canon.Path{"metadata", "userId"}, false},
		{canon.Path{"metadata", "session", "cwd"}, false},
		{canon.Path{"metadata", "session", "gitBranch"}, false},
		{canon.Path{"metadata", "permissionMode"}, false},
		{canon.Path{"steps", 3, "metadata", "usage", "service_tier"}, false},
		{canon.Path{"steps", 3, "metadata", "usage", "cache_creation", "ephemeral_1h_input_tokens"}, false},
		{canon.Path{"metadata", "valid"}, false},
		{canon.Path{"metadata", "runtime"}, false},
		{canon.Path{"metadata"}, false},
		{canon.Path{"metadata", "items", 0}, false},
	} {
		if got := Volatile(c.path); got != c.want {
			t.Errorf("Volatile(%s) = %v, want %v", c.path, got, c.want)
		}
	}
}
