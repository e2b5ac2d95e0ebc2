package execlog

import (
	"testing"
)

// oldLog uses every field the log had before steps gained error, usage,
// reasoning, agent, parent_step and output_parts, prompts and outputs parts
// and media types, and inputs seen: its pack hash was computed then and
// must never change.
const oldLog = `{
  "created": "2026-02-10T09:00:00Z",
  "model": {"identifier": "gpt-4o", "parameters": {"temperature": 0.7, "seed": 7}},
  "system_prompt": "You are terse.",
  "prompts": [{"role": "user", "content": "Fix the test."}, {"role": "user", "content": ""}],
  "inputs": [
    {"name": "src/main.py", "content": "print('hi')\n"},
    {"name": "logo.bin", "content_base64": "/wD+"},
    {"name": "empty", "content": "", "size": 0}
  ],
  "steps": [
    {"index": 0, "type": "tool_call", "tool": "read_file", "parameters": {"path": "src/main.py"},
     "output": "print('hi')\n", "deterministic": true, "timestamp": "2026-02-10T09:00:01Z"},
    {"index": 1, "type": "llm_call", "deterministic": false, "timestamp": "2026-02-10T09:00:02Z",
     "output_base64": "AAEC", "metadata": {"tokens": 12}},
    {"index": 2, "type": "tool_call", "tool": "grep"}
  ],
  "outputs": [{"name": "result.md", "content": "done\n", "confidence": "high", "notes": "checked"},
              {"name": "empty.txt", "content": ""}],
  "environment": {"os": "linux", "runtime": "go1.26", "tool_versions": {"read_file": "1.0"}, "metadata": {"host": "x"}},
  "metadata": {"ticket": "CTX-6"}
}`

// oldHash is oldLog's pack hash, computed before the schema was extended.
const oldHash = "sha256:169857c090ed4da838916b05df1b83a8d8b44386518854a806ec20420c821fe3"

func TestOldLogKeepsItsHash(t *testing.T) {
	t.Parallel()
	l, err := Parse([]byte(oldLog), Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.Hash(newStore(t))
	if err != nil {
		t.Fatal(err)
	}
	if d.String() != oldHash {
		t.Errorf("hash = %s, want %s", d, oldHash)
	}
}
