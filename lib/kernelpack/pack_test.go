package kernelpack

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/internal/testsys"
)

const (
	testBundle = `{"id":"b","schema_version":"0.1.0","kernel_version":"0.1.0","status":"complete","root_node":{},"terminal_nodes":[],"outputs":[],"unresolved_questions":[],"stats":{}}`
	// canonicalHash of testBundle, computed with the kernel's canonical.ts under Node.
	testBundleHash = "sha256:176f58674fe19e2501f454a291101ef23e5504aa0c20abb3c5c2a98762ff79e0"
)

// testRun returns a run.json whose bundle reference is testBundle's hash,
// with kind as kernel_result_kind.
func testRun(kind string) string {
	return `{"run_schema_version":"1.0.0","run_id":"r","started_at":"s","completed_at":"c","kernel_version":"k","policy":{"name":"dev"},"intent":{},` +
		`"bundle":{"bundle_id":"b","sha256":"` + testBundleHash + `"},"kernel_result_kind":"` + kind + `","decision":{},"model_mode":"none"}`
}

// writePack makes directory name under the current directory with files;
// a value "<dir>" makes a subdirectory, "-> target" a symlink.
func writePack(t *testing.T, name string, files map[string]string) {
	t.Helper()
	if err := os.Mkdir(name, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, content := range files {
		p := filepath.Join(name, f)
		var err error
		switch {
		case content == "<dir>":
			err = os.Mkdir(p, 0o755)
		case strings.HasPrefix(content, "-> "):
			err = os.Symlink(strings.TrimPrefix(content, "-> "), p)
		default:
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func violationStrings(r *Result) []string {
	var out []string
	for _, v := range r.Violations {
		out = append(out, v.RuleID+" "+v.Path+": "+v.Message)
	}
	return out
}

func TestPackEdgeCases(t *testing.T) {
	t.Chdir(t.TempDir())
	writePack(t, "valid", map[string]string{"run.json": testRun("BUNDLE"), "bundle.json": testBundle})
	if err := os.Symlink("valid", "link"); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("valid")
	if err != nil {
		t.Fatal(err)
	}

	writePack(t, "dirs", map[string]string{"run.json": testRun("BUNDLE"), "bundle.json": testBundle, "policy.json": "<dir>", "ledger.jsonl": "<dir>"})
	writePack(t, "badrun", map[string]string{"run.json": "{x}", "bundle.json": testBundle})
	writePack(t, "nullrun", map[string]string{"run.json": "null"})
	writePack(t, "arrayrun", map[string]string{"run.json": "[]", "bundle.json": testBundle, "evidence.json": "[]"})
	writePack(t, "refuse", map[string]string{"run.json": strings.Replace(testRun("REFUSE"), testBundleHash, "sha256:00", 1), "bundle.json": testBundle, "evidence.json": `"x"`})
	writePack(t, "links", map[string]string{"run.json": "-> ../valid/run.json", "bundle.json": testBundle, "policy.json": "-> ../valid/bundle.json", "ledger.jsonl": "-> missing"})
	writePack(t, "badbundle", map[string]string{"run.json": testRun("CLARIFY"), "bundle.json": `{"id":1,`, "meta.json": "[1 2]"})
	writePack(t, "latin1", map[string]string{"run.json": testRun("BUNDLE"), "bundle.json": testBundle, "caf\xe9.json": "{}"})

	tests := []struct {
		path string
		opts Options
		want []string
		exit int
	}{
		{"valid", defaults, nil, 0},
		{"valid/", defaults, nil, 0},
		{abs, defaults, nil, 0},
		{"./valid", defaults, []string{"PK7 ./valid: pack path contains traversal patterns"}, 1},
		{"valid/../valid", defaults, []string{"PK7 valid/../valid: pack path contains traversal patterns"}, 1},
		{"link", defaults, []string{"IO link: pack path is not a directory"}, 2},
		// Resolved lexically like path.resolve, so the trailing slash does
		// not make lstat follow the link.
		{"link/", defaults, []string{"IO link/: pack path is not a directory"}, 2},
		// IO replaces the PK7 found before it.
		{"../missing", defaults, []string{"IO ../missing: pack directory does not exist"}, 2},
		{"dirs", defaults, []string{
			"PK12 ledger.jsonl: not a regular file: ledger.jsonl",
			"PK12 policy.json: not a regular file: policy.json",
			// Node's own text for reading a directory.
			"PK8 policy.json: failed to parse: EISDIR: illegal operation on a directory, read",
			"PK9 ledger.jsonl: failed to read ledger: EISDIR: illegal operation on a directory, read",
		}, 1},
		{"dirs", Options{}, []string{
			"PK12 ledger.jsonl: not a regular file: ledger.jsonl",
			"PK12 policy.json: not a regular file: policy.json",
		}, 1},
		{"badrun", defaults, []string{
			"PK3 run.json: failed to parse: run.json: line 1, column 2: unexpected character 'x', expected a property name in double quotes",
		}, 1},
		{"nullrun", defaults, []string{
			"PK1 bundle.json: required file missing: bundle.json (required for BUNDLE/CLARIFY outcomes)",
			"PK3 run.json: run.json must be a JSON object",
		}, 1},
		{"arrayrun", defaults, []string{
			"PK3 run.json: missing required field: completed_at",
			"PK3 run.json: missing required field: decision",
			"PK3 run.json: missing required field: intent",
			"PK3 run.json: missing required field: kernel_result_kind",
			"PK3 run.json: missing required field: kernel_version",
			"PK3 run.json: missing required field: model_mode",
			"PK3 run.json: missing required field: policy",
			"PK3 run.json: missing required field: run_id",
			"PK3 run.json: missing required field: run_schema_version",
			"PK3 run.json: missing required field: started_at",
			"PK8 evidence.json: missing required field: action_results",
			"PK8 evidence.json: missing required field: proposal_hash",
			"PK8 evidence.json: missing required field: proposal_id",
			"PK8 evidence.json: missing required field: status",
			"PK8 evidence.json: missing required field: test_results",
		}, 1},
		// A REFUSE pack that carries a bundle is still hash-checked.
		{"refuse", defaults, []string{
			"PK5 bundle.json: hash mismatch: run.json references sha256:00, but bundle.json computes to " + testBundleHash,
			"PK8 evidence.json: evidence.json must be an object",
		}, 1},
		{"refuse", Options{}, nil, 0},
		// run.json as a symlink is missing; policy.json is read through its
		// link (existsSync only) and compared; a dangling ledger is skipped.
		{"links", defaults, []string{
			"PK1 run.json: required file missing: run.json",
			"PK6 ledger.jsonl: file is a symbolic link: ledger.jsonl",
			"PK6 policy.json: file is a symbolic link: policy.json",
			"PK6 run.json: file is a symbolic link: run.json",
		}, 1},
		{"badbundle", defaults, []string{
			"PK4 bundle.json: failed to parse: bundle.json: line 1, column 9: unexpected end of input, expected a property name in double quotes",
			"PK5 bundle.json: hash mismatch: run.json references " + testBundleHash + ", but bundle.json computes to null",
			"PK8 meta.json: invalid JSON: meta.json: line 1, column 4: unexpected character '2', expected ',' or ']' in an array",
		}, 1},
		// meta.json is checked even with --no-deep.
		{"badbundle", Options{}, []string{
			"PK8 meta.json: invalid JSON: meta.json: line 1, column 4: unexpected character '2', expected ',' or ']' in an array",
		}, 1},
		// Node decodes the name with U+FFFD, and then cannot stat it.
		{"latin1", defaults, []string{
			"PK12 caf\uFFFD.json: not a regular file: caf\uFFFD.json",
			"PK2 caf\uFFFD.json: unknown file in pack: caf\uFFFD.json",
		}, 1},
	}
	for _, tt := range tests {
		r := Verify(tt.path, tt.opts)
		if r.Err != nil {
			t.Errorf("Verify(%q, %+v) aborted: %v", tt.path, tt.opts, r.Err)
			continue
		}
		if got := violationStrings(r); !slices.Equal(got, tt.want) {
			t.Errorf("Verify(%q, %+v) violations\n got %q\nwant %q", tt.path, tt.opts, got, tt.want)
		}
		if r.ExitCode() != tt.exit {
			t.Errorf("Verify(%q, %+v).ExitCode() = %d, want %d", tt.path, tt.opts, r.ExitCode(), tt.exit)
		}
		if r.PackPath != tt.path {
			t.Errorf("PackPath = %q, want %q", r.PackPath, tt.path)
		}
	}

	// The absolute path is echoed as given, and nothing else changes.
	r := Verify(abs, defaults)
	want := `{"files_verified":["bundle.json","run.json"],"ok":true,"pack_path":"` + abs + `","reference_checks":[{"computed":"` + testBundleHash +
		`","expected":"` + testBundleHash + `","field":"bundle.sha256","match":true,"source":"run.json","target":"bundle.json"}]}` + "\n"
	if got := string(r.JSON()); got != want {
		t.Errorf("JSON\n got %s\nwant %s", got, want)
	}
}

// A FIFO is not a regular file; the verifier reports it and never opens it.
func TestPackFIFO(t *testing.T) {
	t.Chdir(t.TempDir())
	writePack(t, "p", map[string]string{"run.json": testRun("BUNDLE"), "bundle.json": testBundle})
	for _, name := range []string{"meta.json", "policy.json"} {
		if err := testsys.Mkfifo(filepath.Join("p", name)); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	got := violationStrings(Verify("p", defaults))
	want := []string{
		"PK12 meta.json: not a regular file: meta.json",
		"PK12 policy.json: not a regular file: policy.json",
		"PK8 policy.json: failed to parse: policy.json: not a regular file",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations\n got %q\nwant %q", got, want)
	}
}

func TestVerifyAborts(t *testing.T) {
	t.Chdir(t.TempDir())
	writePack(t, "p", map[string]string{
		"run.json":    testRun("BUNDLE"),
		"bundle.json": `{"id":1,"schema_version":"1","kernel_version":1,"status":1,"root_node":{},"terminal_nodes":[],"outputs":[null,{"path":"a"}],"unresolved_questions":[],"stats":{}}`,
	})
	r := Verify("p", defaults)
	if r.Err == nil || r.Err.Error() != "Cannot read properties of null (reading 'path')" {
		t.Fatalf("Err = %v, want the TypeError the reference throws", r.Err)
	}
	if r.JSON() != nil {
		t.Errorf("JSON() = %s, want nil: the kernel prints nothing", r.JSON())
	}
	if r.ExitCode() != 2 {
		t.Errorf("ExitCode() = %d, want 2", r.ExitCode())
	}
	if got, want := r.Human(), "kernel pack p: verification aborted: Cannot read properties of null (reading 'path')\n"; got != want {
		t.Errorf("Human() = %q, want %q", got, want)
	}
	// Without deep validation the bundle is only hashed, which cannot throw.
	if r := Verify("p", Options{Refs: true}); r.Err != nil || r.ExitCode() != 1 {
		t.Errorf("--no-deep: Err = %v, exit %d; want a PK5 mismatch and exit 1", r.Err, r.ExitCode())
	}

	writePack(t, "q", map[string]string{"run.json": strings.Replace(testRun("BUNDLE"), `"BUNDLE"`, `{"toString":1}`, 1), "bundle.json": testBundle})
	if r := Verify("q", defaults); r.Err == nil || r.Err.Error() != "Cannot convert object to primitive value" {
		t.Errorf("unprintable kernel_result_kind: Err = %v", r.Err)
	}
}

func TestHuman(t *testing.T) {
	t.Chdir(t.TempDir())
	writePack(t, "ok", map[string]string{"run.json": testRun("BUNDLE"), "bundle.json": testBundle})
	writePack(t, "bad", map[string]string{"run.json": testRun("BUNDLE"), "notes\x01.txt": "x"})
	got := Verify("ok", defaults).Human()
	want := "kernel pack ok: valid\n" +
		"  files verified: bundle.json, run.json\n" +
		"  run.json bundle.sha256 -> bundle.json: match (" + testBundleHash + ")\n"
	if got != want {
		t.Errorf("valid:\n got %q\nwant %q", got, want)
	}
	got = Verify("bad", defaults).Human()
	want = "kernel pack bad: invalid, 2 violations\n" +
		"  PK1  bundle.json: required file missing: bundle.json (required for BUNDLE/CLARIFY outcomes)\n" +
		"  PK2  notes\\u0001.txt: unknown file in pack: notes\\u0001.txt\n" // escaped: a name must not act on the terminal
	if got != want {
		t.Errorf("invalid:\n got %q\nwant %q", got, want)
	}
	got = Verify("ok", Options{Deep: true}).Human()
	if !strings.Contains(got, "no reference checks") {
		t.Errorf("--no-refs: %q lacks the empty reference check line", got)
	}
}
