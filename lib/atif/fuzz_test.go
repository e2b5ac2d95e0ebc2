package atif

import (
	"bytes"
	"os"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/formats"
	"github.com/ctx-tools/ctx/lib/importer"
)

// FuzzRoundTrip: whatever trajectory the importer accepts exports, and
// the export imports and exports again to the same bytes. (An invalid
// input, a result naming no call, is kept as it is, so the cross checks
// hold only for valid ones: TestRoundTrip.)
func FuzzRoundTrip(f *testing.F) {
	if data, err := os.ReadFile(fixtures + "/atif/harbor.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"c","function_name":"f","arguments":{}}],"observation":{"results":[{"content":"x"},{"source_call_id":"c","content":"y"}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		log, _, err := formats.Import(importer.ATIF, data, importer.Options{})
		if err != nil {
			return
		}
		out, _, err := Export(log, Options{})
		if err != nil {
			t.Fatalf("export: %v\n%s", err, log)
		}
		if !gjson.ValidBytes(out) {
			t.Fatalf("the export is not JSON:\n%s", out)
		}
		again, _, err := formats.Import(importer.ATIF, out, importer.Options{})
		if err != nil {
			t.Fatalf("the export does not import: %v\n%s", err, out)
		}
		out2, _, err := Export(again, Options{})
		if err != nil || !bytes.Equal(out2, out) {
			t.Fatalf("a second round trip differs (%v):\n%s\n%s", err, out, out2)
		}
	})
}
