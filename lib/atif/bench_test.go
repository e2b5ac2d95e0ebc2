package atif

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
)

// trajectory generates an ATIF trajectory of at least size bytes shaped
// like Harbor's terminus runs: a user task, then agent steps each with
// reasoning, one bash call, its observation and metrics.
func trajectory(size int) []byte {
	var sb strings.Builder
	sb.Grow(size + 64<<10)
	sb.WriteString(`{"schema_version":"ATIF-v1.7","session_id":"run-1","agent":{"name":"terminus-2","version":"2.0.0","model_name":"anthropic/claude-sonnet-4-5"},"steps":[`)
	sb.WriteString(`{"step_id":1,"timestamp":"2026-02-09T08:20:00Z","source":"user","message":"Fix the failing build in /app."}`)
	out := strings.Repeat("cc -O2 -c src/module.c -o build/module.o\n", 40)
	for i := 2; sb.Len() < size; i++ {
		fmt.Fprintf(&sb, `,{"step_id":%d,"timestamp":"2026-02-09T08:%02d:%02d.%06d+00:00","source":"agent","model_name":"anthropic/claude-sonnet-4-5","message":"Step %d: running make.","reasoning_content":%q,"tool_calls":[{"tool_call_id":"call_%d","function_name":"bash_command","arguments":{"keystrokes":"make -C /app\n","duration":10}}],"observation":{"results":[{"source_call_id":"call_%d","content":%q}]},"metrics":{"prompt_tokens":%d,"completion_tokens":120,"cached_tokens":%d,"cost_usd":0.0123}}`,
			i, i/60%60, i%60, i, i, strings.Repeat("The linker flags look wrong; check the Makefile. ", 6), i, i, out, 4000+i*10, 3000+i*10)
	}
	sb.WriteString(`]}`)
	return []byte(sb.String())
}

// BenchmarkImport measures ctx-pack --from atif's conversion of a 10 MB
// trajectory into an execution log.
func BenchmarkImport(b *testing.B) {
	data := trajectory(10 << 20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := formats.Import(importer.ATIF, data, importer.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExport measures ctx-show --atif's writing of that log as a
// trajectory.
func BenchmarkExport(b *testing.B) {
	data := trajectory(10 << 20)
	log, _, err := formats.Import(importer.ATIF, data, importer.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(log)))
	for b.Loop() {
		if _, _, err := Export(log, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
