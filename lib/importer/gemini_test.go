package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/execlog"
)

// TestGeminiCLI imports the four forms Gemini CLI writes and checks them
// against counts taken from each file by hand: tool calls, results,
// failed calls, model turns, prompts by role, images and token sums.
func TestGeminiCLI(t *testing.T) {
	for _, tc := range []struct {
		file                                 string
		calls, results, errors, turns, users int
		images                               int
		usage                                map[string]int64
		warnings                             []string
	}{
		{"session.jsonl", 2, 2, 1, 2, 2, 1, map[string]int64{"input_tokens": 10520, "output_tokens": 84, "cache_read_tokens": 9216, "reasoning_tokens": 210, "total_tokens": 10814},
			[]string{"line 9: $rewindTo undid 1 message(s); they are not in the log"}},
		{"legacy.json", 1, 1, 0, 2, 1, 0, map[string]int64{"input_tokens": 1830, "output_tokens": 23, "cache_read_tokens": 0, "reasoning_tokens": 0, "total_tokens": 1853}, nil},
		{"stream.jsonl", 2, 2, 1, 3, 1, 0, map[string]int64{}, nil},
		// The context Gemini CLI sends first is a user Content too.
		{"checkpoint.json", 2, 2, 1, 4, 2, 0, map[string]int64{}, []string{"the input does not name the model; identifier set to \"unknown\""}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata/gemini-cli", tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if f, err := Detect(path, data); f != GeminiCLI {
				t.Fatalf("Detect = %q, %v", f, err)
			}
			out, rep, err := Import(GeminiCLI, data, Options{Name: tc.file})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, strings.TrimSuffix(path, filepath.Ext(path))+".golden.json", canon.Indent(out))
			if _, err := execlog.Parse(out, execlog.Options{}); err != nil {
				t.Fatalf("ctx-pack would reject the log:\n%v", err)
			}
			if strings.Join(rep.Warnings, "|") != strings.Join(tc.warnings, "|") {
				t.Errorf("warnings = %q", rep.Warnings)
			}
			l := gjson.ParseBytes(out)
			var calls, results, errors, turns, users, images int
			usage := map[string]int64{}
			for _, s := range l.Get("steps").Array() {
				if s.Get("type").String() == "tool_call" {
					calls++
					if s.Get("output").Exists() || s.Get("output_parts").Exists() {
						results++
					}
					if s.Get("error").Exists() {
						errors++
					}
					continue
				}
				turns++
				s.Get("usage").ForEach(func(k, v gjson.Result) bool {
					usage[k.Str] += v.Int()
					return true
				})
			}
			for _, p := range l.Get("prompts").Array() {
				if p.Get("role").String() == "user" {
					users++
				}
				for _, part := range p.Get("parts").Array() {
					if part.Get("type").String() == "image" {
						images++
					}
				}
			}
			if calls != tc.calls || results != tc.results || errors != tc.errors || turns != tc.turns || users != tc.users || images != tc.images {
				t.Errorf("%d calls, %d results, %d errors, %d turns, %d user prompts, %d images", calls, results, errors, turns, users, images)
			}
			if len(usage) != len(tc.usage) {
				t.Errorf("usage = %v", usage)
			}
			for k, v := range tc.usage {
				if usage[k] != v {
					t.Errorf("usage %s = %d, want %d", k, usage[k], v)
				}
			}
		})
	}
}
