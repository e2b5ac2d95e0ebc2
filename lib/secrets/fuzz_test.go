package secrets

import (
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/secrettest"
	"github.com/ctx-tools/ctx/lib/execlog"
)

// FuzzRedactLog: whatever the log, redacting it either fails with an
// error or gives a valid log whose secrets the scanner no longer finds,
// and a redacted log redacts to itself.
func FuzzRedactLog(f *testing.F) {
	corpus := secrettest.Corpus(5)
	for _, s := range corpus {
		f.Add(`{"model":{"identifier":"m"},"steps":[],"prompts":[{"role":"user","content":` + quote("x "+s.Value+"\n") + `}]}`)
	}
	f.Add(`{"model":{"identifier":"m"},"steps":[{"index":0,"type":"tool_call","tool":"t","parameters":{"a":["` + secrettest.ByName(corpus, "github") + `"]},"output_base64":"aGVsbG8=","deterministic":true}],"metadata":{"x":1}}`)
	f.Add(`{"model":{"identifier":"m"},"steps":[],"metadata":{"redaction":{"marks":3}}}`)
	f.Add(`[1,{"a":"b"}]`)
	sc := newScanner(f)
	f.Fuzz(func(t *testing.T, log string) {
		if _, err := execlog.Parse([]byte(log), execlog.Options{}); err != nil {
			return
		}
		red, rep, err := sc.RedactLog([]byte(log))
		if err != nil {
			return
		}
		if _, err := execlog.Parse(red, execlog.Options{}); err != nil {
			t.Fatalf("redacted log does not parse: %v\n%s", err, red)
		}
		again, rep2, err := sc.RedactLog(red)
		if err != nil || len(rep2.Findings) > 0 {
			t.Fatalf("redacted log is not clean: %v %+v", err, rep2.Findings)
		}
		if string(again) != string(red) {
			t.Fatalf("redacting twice changed the log:\n%s\n%s", red, again)
		}
		for _, fd := range rep.Findings {
			if !strings.HasPrefix(fd.Mark, "[REDACTED:"+fd.Rule+":") {
				t.Fatalf("mark %s for rule %s", fd.Mark, fd.Rule)
			}
		}
	})
}
