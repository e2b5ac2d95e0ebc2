package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/replay/render"
)

// DefaultTimeout bounds an external executor that sets no timeout.
const DefaultTimeout = 30 * time.Second

// stderrTail is how much of a failed command's stderr makes its reason.
const (
	stderrTailLines = 5
	stderrTailBytes = 4096
)

// Command is an external executor: a program and its arguments, never a
// shell line.
type Command struct {
	Argv    []string
	Ver     string
	Timeout time.Duration
}

// Version returns the version the user declared, or "".
func (c *Command) Version() string { return c.Ver }

// Run runs the command for call (see the package documentation).
func (c *Command) Run(ctx context.Context, call *Call, out io.Writer) error {
	in := []byte("{}")
	if len(call.Parameters) > 0 {
		var err error
		if in, err = canon.Canonicalize(call.Parameters); err != nil {
			return fmt.Errorf("encoding parameters: %w", err)
		}
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Dir = call.Workspace.Dir
	cmd.Env = append(os.Environ(), "CTX_TOOL="+call.Tool, "CTX_STEP_INDEX="+strconv.Itoa(call.Index))
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stdout = out
	tail := &tailBuffer{max: stderrTailBytes}
	cmd.Stderr = tail
	setProcessGroup(cmd)
	// Children that keep stdout open must not hold the step forever once
	// the group is killed.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if err == nil {
		return nil
	}
	var why string
	var ee *exec.ExitError
	prog := filepath.Base(c.Argv[0])
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		why = fmt.Sprintf("%s timed out after %s", prog, timeout)
	case errors.As(err, &ee):
		why = fmt.Sprintf("%s: %s", prog, ee.ProcessState)
	default:
		why = err.Error()
	}
	if t := tail.lines(stderrTailLines); t != "" {
		why += ": " + t
	}
	return errors.New(why)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = t.b[over:]
	}
	return len(p), nil
}

// lines returns the last n non-empty lines, joined with " | " so a reason
// stays on one line.
func (t *tailBuffer) lines(n int) string {
	var out []string
	for l := range strings.SplitSeq(strings.ToValidUTF8(string(t.b), "\uFFFD"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.Join(out, " | ")
}

// Split splits a command line into words as a POSIX shell splits simple
// words, expanding nothing (render.Split).
func Split(line string) ([]string, error) {
	return render.Split(line)
}

// ParseToolFlag parses a --tool NAME=CMD value. A program given as a
// relative path with a slash is made absolute against dir (the working
// directory), since the command runs in the workspace.
func ParseToolFlag(spec, dir string, timeout time.Duration) (string, *Command, error) {
	name, line, ok := strings.Cut(spec, "=")
	if !ok || name == "" {
		return "", nil, fmt.Errorf("parsing --tool %q: want NAME=CMD", spec)
	}
	argv, err := Split(line)
	if err != nil {
		return "", nil, fmt.Errorf("parsing --tool %s: %w", name, err)
	}
	argv[0] = absProgram(argv[0], dir)
	return name, &Command{Argv: argv, Timeout: timeout}, nil
}

func absProgram(prog, dir string) string {
	if strings.ContainsRune(prog, filepath.Separator) && !filepath.IsAbs(prog) {
		return filepath.Join(dir, prog)
	}
	return prog
}

type toolConfig struct {
	Command []string `json:"command"`
	Version string   `json:"version"`
	Timeout string   `json:"timeout"`
}

// ConfigTools reads the executors in the "tools" member of a store's
// config.json:
//
//	{"tools": {"NAME": {"command": ["prog", "arg"], "version": "1.2", "timeout": "30s"}}}
//
// command is required; version and timeout (a Go duration, default
// DefaultTimeout) are optional; other members are errors. A relative
// program path with a slash is relative to dir, the directory that holds
// the store.
func ConfigTools(raw []byte, dir string) (map[string]*Command, error) {
	var top struct {
		Tools jsontext.Value `json:"tools"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("reading tools from config.json: %w", err)
	}
	if len(top.Tools) == 0 {
		return nil, nil
	}
	var tools map[string]jsontext.Value
	if err := json.Unmarshal(top.Tools, &tools); err != nil {
		return nil, fmt.Errorf("reading tools from config.json: tools: %w", err)
	}
	out := map[string]*Command{}
	// Sorted, so that of several bad entries the same one is reported.
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		var tc toolConfig
		if err := json.Unmarshal(tools[name], &tc, json.RejectUnknownMembers(true)); err != nil {
			return nil, fmt.Errorf("reading tools from config.json: tools.%s: %w", name, err)
		}
		if len(tc.Command) == 0 || tc.Command[0] == "" {
			return nil, fmt.Errorf("reading tools from config.json: tools.%s.command: want a non-empty array of strings", name)
		}
		c := &Command{Argv: slices.Clone(tc.Command), Ver: tc.Version, Timeout: DefaultTimeout}
		c.Argv[0] = absProgram(c.Argv[0], dir)
		if tc.Timeout != "" {
			d, err := time.ParseDuration(tc.Timeout)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("reading tools from config.json: tools.%s.timeout: %q is not a positive duration such as \"30s\"", name, tc.Timeout)
			}
			c.Timeout = d
		}
		out[name] = c
	}
	return out, nil
}
