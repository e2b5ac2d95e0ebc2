package secrettest

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// PlantCmd is the testscript command plant-secrets: it writes Files,
// holding fake secrets made now, into the working directory, and the
// secrets to $WORK/.planted.json.
func PlantCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: plant-secrets")
	}
	corpus := Corpus(uint64(len(ts.Getenv("WORK"))))
	for name, text := range Files(corpus) {
		p := ts.MkAbs(name)
		ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
		ts.Check(os.WriteFile(p, []byte(text), 0o644))
	}
	b, err := json.Marshal(corpus)
	ts.Check(err)
	ts.Check(os.WriteFile(filepath.Join(ts.Getenv("WORK"), ".planted.json"), b, 0o600))
}

// NoSecretsCmd is the testscript command no-secrets ARG…: it fails if
// any secret plant-secrets planted is in ARG: stdout, stderr, a file, or
// every file under a directory.
func NoSecretsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: no-secrets stdout|stderr|PATH…")
	}
	b, err := os.ReadFile(filepath.Join(ts.Getenv("WORK"), ".planted.json"))
	ts.Check(err)
	var corpus []Secret
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
