package importer

import (
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/internal/importtest"
)

// importFixture imports testdata/<format>/<file>, checks detection, the
// golden log and that ctx-pack accepts it, and returns the log.
func importFixture(t *testing.T, format, file string) ([]byte, Report) {
	t.Helper()
	out, rep := importtest.Fixture(t, filepath.Join("testdata", format, file), format, Detect,
		func(data []byte) ([]byte, Report, error) { return Import(format, data, Options{Name: file}) }, *update)
	if rep.Mapped+rep.Skipped != rep.Records {
		t.Errorf("report = %+v", rep)
	}
	return out, rep
}

// TestGeminiNoIDs: messages of an older session without ids are each
// their own (not one, as a shared empty id would make them).
func TestGeminiNoIDs(t *testing.T) {
	doc := `{"sessionId":"s","projectHash":"h","startTime":"2026-02-23T00:07:11.272Z","messages":[` +
		`{"timestamp":"2026-02-23T00:07:12.000Z","type":"user","content":"a"},` +
		`{"timestamp":"2026-02-23T00:07:13.000Z","type":"gemini","content":"b","model":"gemini-2.5-pro"},` +
		`{"timestamp":"2026-02-23T00:07:14.000Z","type":"user","content":"c"}]}`
	out, rep, err := Import(GeminiCLI, []byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := gjson.ParseBytes(out)
	if l.Get("prompts.#").Int() != 2 || l.Get("steps.#").Int() != 1 || rep.Records != 3 {
		t.Errorf("report %+v, log %s", rep, out)
	}
}
