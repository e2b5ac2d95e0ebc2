package secrets

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/secrettest"
	"github.com/ctx-tools/ctx/lib/store"
)

// TestSecretKeys: secrets that are member names (a token under
// model.parameters, an access key id under metadata.env) are found, by
// RedactLog and by ScanPack, at a path that shows them as their mark,
// and redacted.
func TestSecretKeys(t *testing.T) {
	t.Parallel()
	corpus := secrettest.Corpus(13)
	log := []byte(secrettest.Files(corpus)["keys.json"])
	gh, aws := secrettest.ByName(corpus, "github"), secrettest.ByName(corpus, "aws")
	sc := newScanner(t)
	check := func(t *testing.T, fs []Finding) {
		t.Helper()
		want := map[string]string{"github-pat": "model.parameters", "aws-access-token": "metadata.env"}
		for _, f := range fs {
			out, _ := json.Marshal(f)
			if strings.Contains(string(out), gh) || strings.Contains(string(out), aws) || strings.Contains(f.String(), gh) || strings.Contains(f.String(), aws) {
				t.Errorf("a finding holds the secret: %s", out)
			}
			if parent, ok := want[f.Rule]; ok && f.Key && strings.HasPrefix(f.Path, parent) && strings.Contains(f.Path, f.Mark) {
				delete(want, f.Rule)
			}
		}
		for rule, parent := range want {
			out, _ := json.Marshal(fs)
			t.Errorf("no %s finding for a member name under %s; findings: %s", rule, parent, out)
		}
	}
	t.Run("log", func(t *testing.T) {
		red, rep, err := sc.RedactLog(log)
		if err != nil {
			t.Fatal(err)
		}
		check(t, rep.Findings)
		if strings.Contains(string(red), gh) || strings.Contains(string(red), aws) {
			t.Errorf("the redacted log still holds a secret member name:\n%s", red)
		}
		if _, rep, err := sc.RedactLog(red); err != nil || len(rep.Findings) > 0 {
			t.Errorf("the redacted log is not clean: %v %+v", err, rep.Findings)
		}
	})
	t.Run("pack", func(t *testing.T) {
		st, _, err := store.Init(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := mustLog(t, log).Pack(st)
		if err != nil {
			t.Fatal(err)
		}
		fs, _, err := sc.ScanPack(st, m, nil)
		if err != nil {
			t.Fatal(err)
		}
		check(t, fs)
	})
}
