package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
	"github.com/ctx-tools/ctx/cmd/internal/ocitest"
	"github.com/ctx-tools/ctx/internal/secrettest"
)

func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }

// TestScripts runs the scenarios, with two commands of their own:
//
//	plant-secrets   writes secrettest's files, holding fake secrets made
//	                now, into the working directory, and the secrets to
//	                $WORK/.planted.json
//	no-secrets ARG… fails if any planted secret is in ARG: stdout, stderr,
//	                a file, or every file under a directory
func TestScripts(t *testing.T) {
	if err := e2e.Lint("testdata/script"); err != nil {
		t.Error(err)
	}
	p := ocitest.Params("testdata/script")
	p.Cmds["plant-secrets"] = plantSecrets
	p.Cmds["no-secrets"] = noSecrets
	testscript.Run(t, p)
}

func plantSecrets(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: plant-secrets")
	}
	corpus := secrettest.Corpus(uint64(len(ts.Getenv("WORK"))))
	for name, text := range secrettest.Files(corpus) {
		p := ts.MkAbs(name)
		ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
		ts.Check(os.WriteFile(p, []byte(text), 0o644))
	}
	b, err := json.Marshal(corpus)
	ts.Check(err)
	ts.Check(os.WriteFile(filepath.Join(ts.Getenv("WORK"), ".planted.json"), b, 0o600))
}

func noSecrets(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: no-secrets stdout|stderr|PATH…")
	}
	b, err := os.ReadFile(filepath.Join(ts.Getenv("WORK"), ".planted.json"))
	ts.Check(err)
	var corpus []secrettest.Secret
	ts.Check(json.Unmarshal(b, &corpus))
	check := func(name, text string) {
		for _, s := range corpus {
			for _, part := range s.Parts() {
				if strings.Contains(text, part) {
					ts.Fatalf("%s holds the planted %s secret", name, s.Name)
				}
			}
		}
	}
	files := 0
	for _, a := range args {
		if a == "stdout" || a == "stderr" {
			check(a, ts.ReadFile(a))
			continue
		}
		err := filepath.WalkDir(ts.MkAbs(a), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files++
			check(p, string(b))
			return nil
		})
		ts.Check(err)
	}
	ts.Logf("no planted secret in %d file(s)", files)
}
