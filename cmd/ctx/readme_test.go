package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
)

// guides are the files of docs/ the README sends a reader on to, in the
// order a reader follows them; TestREADME runs their blocks after the
// README's.
var guides = []string{
	"docs/commands.md", "docs/html.md", "docs/secrets.md", "docs/sharing.md",
	"docs/signing.md", "docs/grep.md", "docs/capture.md", "docs/formats.md",
	"docs/execution-log.md", "docs/store.md", "docs/development.md",
}

// A block is one ```sh block of the README or a guide and what the line
// before it says: <!-- not run: WHY --> or <!-- needs: TOOL … -->.
type block struct {
	file   string
	line   int
	text   string
	notRun string
	needs  []string
}

var marker = regexp.MustCompile(`^<!-- (not run|needs): (.*) -->$`)

func readmeBlocks(t *testing.T, path string) []block {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		blocks []block
		cur    *block
		prev   string
		body   strings.Builder
		n      int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case cur == nil && line == "```sh":
			cur = &block{file: filepath.Base(path), line: n}
			if m := marker.FindStringSubmatch(prev); m != nil {
				if m[1] == "not run" {
					cur.notRun = m[2]
				} else {
					cur.needs = strings.Fields(m[2])
				}
			}
			body.Reset()
		case cur != nil && line == "```":
			cur.text = body.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line + "\n")
		}
		if strings.TrimSpace(line) != "" {
			prev = strings.TrimSpace(line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

// TestREADME runs every shell block of README.md and then of its guides,
// in order, in one directory, as a reader following the README would: with the binaries on
// PATH, examples/run.json as run.json, an agent-run that prints it, a
// Claude Code transcript in $TRANSCRIPT, and a store holding the example
// run tagged baseline and an earlier snapshot of that session. A block
// runs as written when it exits 0 or 1 (drift found is 1) and prints no
// "error:", "not found" or "No such file" on stderr. A block the text
// marks <!-- not run: WHY --> is skipped (the tests themselves, a remote
// registry), and one marked <!-- needs: TOOL --> is skipped where TOOL is
// not installed; both say so.
func TestREADME(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(t, filepath.Join(root, "README.md"))
	if len(blocks) < 3 {
		t.Fatalf("found %d shell blocks in README.md", len(blocks))
	}
	for _, g := range guides {
		blocks = append(blocks, readmeBlocks(t, filepath.Join(root, filepath.FromSlash(g)))...)
	}
	work := t.TempDir()
	stubs := filepath.Join(work, ".stubs")
	home := filepath.Join(work, ".home")
	for _, d := range []string{stubs, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run, err := os.ReadFile(filepath.Join(root, "examples", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, body string, mode os.FileMode) {
		if err := os.WriteFile(name, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(work, "run.json"), string(run), 0o644)
	write(filepath.Join(stubs, "agent-run"), "#!/bin/sh\n# An agent run: the example's log.\ncat \"$README_RUN\"\n", 0o755)
	write(filepath.Join(home, "transcript.jsonl"), transcript, 0o644)
	write(filepath.Join(home, "early.jsonl"), strings.Join(strings.SplitAfter(transcript, "\n")[:2], ""), 0o644)

	env := []string{
		"PATH=" + filepath.Dir(e2e.Bin("ctx")) + string(os.PathListSeparator) + stubs + string(os.PathListSeparator) + e2e.SystemPath(),
		"HOME=" + home,
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"README_RUN=" + filepath.Join(work, "run.json"),
		"TRANSCRIPT=" + filepath.Join(home, "transcript.jsonl"),
		"GORACE=" + os.Getenv("GORACE"),
	}
	shell, err := lookPath("sh", env)
	if err != nil {
		t.Skipf("needs a POSIX sh, which is not installed: %v", err)
	}
	sh := func(script string) (code int, stdout, stderr string) {
		cmd := exec.Command(shell, "-c", script)
		cmd.Dir, cmd.Env = work, env
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), o.String(), e.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, o.String(), e.String()
	}
	if code, _, stderr := sh(`ctx init >/dev/null && ctx pack --tag baseline run.json >/dev/null && ctx pack --from claude-code "$HOME/early.jsonl" >/dev/null 2>&1 && ctx pack run.json >/dev/null`); code != 0 {
		t.Fatalf("setting up: %d\n%s", code, stderr)
	}
	bad := regexp.MustCompile(`(?m)(error:|not found|No such file)`)
	for _, b := range blocks {
		name := fmt.Sprintf("%s:%d", b.file, b.line)
		if b.notRun != "" {
			t.Logf("%s: not run: %s", name, b.notRun)
			continue
		}
		missing := ""
		for _, tool := range append(b.needs, toolsIn(b.text)...) {
			if _, err := lookPath(tool, env); err != nil {
				missing = tool
			}
		}
		if missing != "" {
			t.Logf("%s: skipped: needs %s, which is not installed", name, missing)
			continue
		}
		code, stdout, stderr := sh(b.text)
		if code > 1 || bad.MatchString(stderr) {
			t.Errorf("%s does not run as written: exit %d\n--- block\n%s--- stdout\n%.2000s\n--- stderr\n%s", name, code, b.text, stdout, stderr)
		}
	}
}

// lookPath finds program on the PATH of env.
func lookPath(program string, env []string) (string, error) {
	for _, kv := range env {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range filepath.SplitList(path) {
				p := filepath.Join(dir, program)
				if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
					return p, nil
				}
			}
		}
	}
	return "", fmt.Errorf("%s is not on PATH", program)
}

// toolsIn lists the programs beyond ctx and the POSIX shell that a block
// calls: they may be missing.
func toolsIn(text string) []string {
	var out []string
	for _, tool := range []string{"jq", "openssl", "cosign"} {
		if regexp.MustCompile(`(^|[|;&(]\s*|\n)` + tool + `\b`).MatchString(text) {
			out = append(out, tool)
		}
	}
	return out
}

// transcript is a small Claude Code session: a prompt, a Read, an answer.
const transcript = `{"type":"user","uuid":"u1","sessionId":"readme-1","cwd":"/home/dev/p","version":"2.1.0","timestamp":"2026-03-01T10:00:01Z","message":{"role":"user","content":"What is in the README?"}}
{"type":"assistant","uuid":"u2","parentUuid":"u1","sessionId":"readme-1","cwd":"/home/dev/p","version":"2.1.0","timestamp":"2026-03-01T10:00:02Z","message":{"id":"m1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/home/dev/p/README.md"}}]}}
{"type":"user","uuid":"u3","parentUuid":"u2","sessionId":"readme-1","cwd":"/home/dev/p","version":"2.1.0","timestamp":"2026-03-01T10:00:03Z","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"     1→# p\n"}]},"toolUseResult":{"type":"text","file":{"filePath":"/home/dev/p/README.md","content":"# p\n","numLines":1,"startLine":1,"totalLines":1}}}
{"type":"assistant","uuid":"u4","parentUuid":"u3","sessionId":"readme-1","cwd":"/home/dev/p","version":"2.1.0","timestamp":"2026-03-01T10:00:04Z","message":{"id":"m2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"A title: p."}]}}
`
