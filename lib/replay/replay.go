package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/replay/render"
	"github.com/ctx-tools/ctx/lib/store"
)

// Status is the outcome of replaying one step.
type Status string

// Step statuses.
const (
	Matched          Status = "matched"
	Diverged         Status = "diverged"
	DivergedExpected Status = "diverged_expected"
	Failed           Status = "failed"
	Skipped          Status = "skipped"
)

// Fidelity grades a whole replay.
type Fidelity string

// Fidelity levels (see the package documentation for the rule).
const (
	Exact      Fidelity = "exact"
	Degraded   Fidelity = "degraded"
	Unverified Fidelity = "unverified"
	Lost       Fidelity = "failed"
)

// ExitCode returns the exit code of the DESIGN.md table for f: 0 exact, 1
// degraded or unverified (negative findings), 4 failed.
func (f Fidelity) ExitCode() int {
	switch f {
	case Exact:
		return 0
	case Degraded, Unverified:
		return 1
	}
	return 4
}

// Drift types.
const (
	DriftToolVersion  = "tool_version"  // recorded tool version differs from the executor's
	DriftMissingInput = "missing_input" // an input could not be materialised or is absent from the live tree
	DriftInputChanged = "input_changed" // a live tree holds other bytes under an input's name
	DriftOS           = "os"            // the recorded OS differs from this one
	DriftRuntime      = "runtime"       // the recorded runtime differs from this one
)

// Report is the result of a replay, printed as canonical JSON.
type Report struct {
	Pack     string       `json:"pack"`
	Fidelity Fidelity     `json:"fidelity"`
	Summary  Summary      `json:"summary"`
	Steps    []StepResult `json:"steps"`
	Drift    []Drift      `json:"drift"`

	// Workspace is the directory the steps ran in; it is gone after Run
	// unless Options.Keep or Options.Live.
	Workspace string `json:"-"`
}

// Summary counts the replayed steps by status. Verified is the number of
// steps that were executed and whose output was compared and found equal
// to the recorded one (the matched steps): what the replay proves.
type Summary struct {
	Steps            int `json:"steps"`
	Verified         int `json:"verified"`
	Matched          int `json:"matched"`
	Diverged         int `json:"diverged"`
	DivergedExpected int `json:"diverged_expected"`
	Failed           int `json:"failed"`
	Skipped          int `json:"skipped"`
}

func summarize(steps []StepResult) Summary {
	sum := Summary{Steps: len(steps)}
	for _, r := range steps {
		switch r.Status {
		case Matched:
			sum.Matched++
		case Diverged:
			sum.Diverged++
		case DivergedExpected:
			sum.DivergedExpected++
		case Failed:
			sum.Failed++
		case Skipped:
			sum.Skipped++
		}
	}
	sum.Verified = sum.Matched
	return sum
}

// StepResult is one replayed step. Expected and Actual are output digests;
// DurationMS is wall time and so differs from run to run.
type StepResult struct {
	Index         int    `json:"index"`
	Tool          string `json:"tool,omitempty"`
	Deterministic bool   `json:"deterministic"`
	Status        Status `json:"status"`
	Expected      string `json:"expected,omitempty"`
	Actual        string `json:"actual,omitempty"`
	Reason        string `json:"reason,omitempty"`
	DurationMS    int64  `json:"duration_ms"`
}

// Drift is one dependency of the run that changed: a tool version (Tool),
// an input (Name), or the OS or runtime.
type Drift struct {
	Type     string `json:"type"`
	Tool     string `json:"tool,omitempty"`
	Name     string `json:"name,omitempty"`
	Expected string `json:"expected,omitempty"`
	Actual   string `json:"actual,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// Options control a replay.
type Options struct {
	// Live replays in this existing directory instead of a temporary
	// workspace holding the pack's inputs.
	Live string
	// Keep leaves the temporary workspace in place.
	Keep bool
	// TempDir is where the temporary workspace is created (default
	// os.TempDir()).
	TempDir string
	// Steps selects the steps to replay (all when empty).
	Steps []Range
	// Tools are the user's executors by tool name; they take precedence
	// over built-ins and aliases.
	Tools map[string]Executor
	// CodexShellReads replays Codex's plain read-only shell commands
	// (CodexShellTools) where Tools names no executor for them.
	CodexShellReads bool
	// Progress, if set, is called before each step runs: pos counts from 1
	// up to total, the number of selected steps.
	Progress func(pos, total int, step *manifest.Step)
	// OS and Runtime describe this machine for drift (default runtime.GOOS
	// and runtime.Version()).
	OS, Runtime string
}

// Executor runs one step and writes its output to out.
type Executor interface {
	// Version is the executor's version, or "" when unknown.
	Version() string
	// Run executes call; an error fails the step, its text is the reason.
	Run(ctx context.Context, call *Call, out io.Writer) error
}

// Call is what an executor gets: the step and the workspace.
type Call struct {
	Tool       string
	Index      int
	Parameters jsontext.Value
	Workspace  *Workspace

	// Recorded returns the step's recorded output (nil when none was
	// recorded). Renderers use it only to choose among notices that do
	// not depend on the files (see package render), never to make up a
	// result.
	Recorded func() ([]byte, error)
}

// maxRecorded bounds the recorded output a renderer may load.
const maxRecorded = 64 << 20

func (c *Call) recorded() ([]byte, error) {
	if c.Recorded == nil {
		return nil, nil
	}
	return c.Recorded()
}

// Run replays the steps of m (loaded from s) and grades them. It returns an
// error only when the replay itself cannot proceed: no workspace, or ctx
// cancelled; everything a step does wrong is in the report.
func Run(ctx context.Context, s *store.Store, m *manifest.Manifest, opt Options) (*Report, error) {
	selected, err := selectSteps(m.Steps, opt.Steps)
	if err != nil {
		return nil, err
	}
	rep := &Report{Pack: m.Hash.String(), Steps: []StepResult{}, Drift: []Drift{}}
	var ws *Workspace
	if opt.Live != "" {
		ws, err = OpenLive(opt.Live)
		if err != nil {
			return nil, err
		}
		defer ws.Close()
		rep.Drift = append(rep.Drift, ws.CheckInputs(s, m.Inputs)...)
	} else {
		var missing []Drift
		ws, missing, err = Materialise(s, m.Inputs, opt.TempDir)
		if err != nil {
			return nil, err
		}
		if opt.Keep {
			defer ws.Close()
		} else {
			defer ws.Remove()
		}
		rep.Drift = append(rep.Drift, missing...)
	}
	rep.Workspace = ws.Dir
	if dir := gjson.GetBytes(m.Metadata, "session.cwd"); dir.Type == gjson.String && strings.HasPrefix(dir.Str, "/") {
		ws.RecordedDir = dir.Str
	}
	rep.Drift = append(rep.Drift, environmentDrift(m.Environment, opt)...)

	tools := opt.Tools
	if opt.CodexShellReads {
		tools = map[string]Executor{}
		maps.Copy(tools, CodexShellTools())
		maps.Copy(tools, opt.Tools)
	}
	versions := map[string]string{}
	writes := firstWrites(m.Steps, ws)
	for i, st := range selected {
		if opt.Progress != nil {
			opt.Progress(i+1, len(selected), st)
		}
		r, ex := replayStep(ctx, s, ws, st, tools)
		if r.Status == Diverged || r.Status == Failed {
			if name, at, ok := writtenBefore(st, writes, ws); ok {
				r.Status = Skipped
				r.Reason = fmt.Sprintf("the session wrote %s at step %d: the workspace holds the files as the session first saw them", name, at)
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("replaying pack %s: %w", m.Hash, err)
		}
		if ex != nil {
			versions[st.Tool] = ex.Version()
		}
		rep.Steps = append(rep.Steps, r)
	}
	rep.Drift = append(rep.Drift, versionDrift(m.Environment.ToolVersions, versions)...)
	nameChangedInputs(rep, selected)
	rep.Summary = summarize(rep.Steps)
	rep.Fidelity = grade(rep)
	return rep, nil
}

func grade(rep *Report) Fidelity {
	f := Exact
	for _, d := range rep.Drift {
		if d.Type == DriftMissingInput {
			return Lost
		}
	}
	for _, r := range rep.Steps {
		if !r.Deterministic {
			continue
		}
		switch r.Status {
		case Failed:
			return Lost
		case Diverged:
			f = Degraded
		}
	}
	if f == Exact && rep.Summary.Verified == 0 {
		return Unverified
	}
	return f
}

// fileWriters are the agents' tools that change the file a parameter
// names (Claude Code's).
var fileWriters = map[string]string{"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path"}

// firstWrites maps each workspace file a step of the pack wrote to the
// index of the first step that wrote it.
func firstWrites(steps []manifest.Step, ws *Workspace) map[string]int {
	writes := map[string]int{}
	for _, st := range steps {
		key, ok := fileWriters[st.Tool]
		if !ok || st.Type != manifest.ToolCall || recordedError(&st) {
			continue
		}
		p := gjson.GetBytes(st.Parameters, key)
		if p.Type != gjson.String {
			continue
		}
		if name, err := resolve(ws.local(p.Str)); err == nil {
			if _, seen := writes[name]; !seen {
				writes[name] = st.Index
			}
		}
	}
	return writes
}

// writtenBefore reports a file the session wrote before deterministic step
// st, which st reads or whose directory it searches: the workspace holds
// files as the session first saw them, not as it left them, so a
// difference or a missing file says nothing about the step.
func writtenBefore(st *manifest.Step, writes map[string]int, ws *Workspace) (string, int, bool) {
	if !st.Deterministic || st.Tool == "" || len(writes) == 0 || recordedError(st) {
		return "", 0, false
	}
	scope := "."
	for _, k := range []string{"file_path", "path", "filename", "notebook_path"} {
		p := gjson.GetBytes(st.Parameters, k)
		if p.Type != gjson.String {
			continue
		}
		name, err := resolve(ws.local(p.Str))
		if err != nil {
			return "", 0, false // the executor says what is wrong with it
		}
		scope = name
		break
	}
	best, at := "", -1
	for name, i := range writes {
		if i >= st.Index || !(scope == "." || name == scope || strings.HasPrefix(name, scope+"/")) {
			continue
		}
		if at < 0 || i < at || i == at && name < best {
			best, at = name, i
		}
	}
	return best, at, at >= 0
}

func replayStep(ctx context.Context, s *store.Store, ws *Workspace, st *manifest.Step, tools map[string]Executor) (StepResult, Executor) {
	r := StepResult{Index: st.Index, Tool: st.Tool, Deterministic: st.Deterministic}
	if !st.OutputRef.IsZero() {
		r.Expected = st.OutputRef.String()
	}
	var ex Executor
	switch {
	case st.Tool != "" && recordedError(st):
		r.Status = Skipped
		r.Reason = "the recorded call failed: an error is not replayed"
		return r, nil
	case st.Tool == "":
		r.Reason = fmt.Sprintf("%s step has no tool to run", stepType(st))
	default:
		ex = Lookup(st.Tool, tools)
		if ex == nil {
			r.Reason = noExecutorReason(st.Tool)
		}
	}
	if ex == nil {
		r.Status = Failed
		if !st.Deterministic {
			r.Status = Skipped
		}
		return r, nil
	}
	h := digest.NewHasher()
	start := time.Now()
	call := &Call{Tool: st.Tool, Index: st.Index, Parameters: st.Parameters, Workspace: ws}
	if !st.OutputRef.IsZero() {
		call.Recorded = func() ([]byte, error) { return recordedOutput(s, st.OutputRef) }
	}
	err := ex.Run(ctx, call, h)
	r.DurationMS = time.Since(start).Milliseconds()
	var skip *render.Unsupported
	switch {
	case errors.As(err, &skip):
		r.Status = Skipped
		r.Reason = skip.Reason
		return r, ex
	case err != nil:
		r.Status = Failed
		r.Reason = err.Error()
		return r, ex
	}
	got := h.Digest()
	r.Actual = got.String()
	switch {
	case st.OutputRef.IsZero():
		r.Status = Skipped
		r.Reason = "no output was recorded to compare with"
	case got == st.OutputRef:
		r.Status = Matched
	case st.Deterministic:
		r.Status = Diverged
	default:
		r.Status = DivergedExpected
	}
	return r, ex
}

// nameChangedInputs gives a diverged step that reads a file whose input
// changed or went missing a reason naming it.
func nameChangedInputs(rep *Report, steps []*manifest.Step) {
	changed := map[string]string{}
	for _, d := range rep.Drift {
		switch d.Type {
		case DriftInputChanged:
			changed[d.Name] = "input " + d.Name + " changed since the run"
		case DriftMissingInput:
			changed[d.Name] = "input " + d.Name + " is missing"
		}
	}
	if len(changed) == 0 {
		return
	}
	for i := range rep.Steps {
		r := &rep.Steps[i]
		if r.Status != Diverged && r.Status != DivergedExpected || r.Reason != "" {
			continue
		}
		for _, k := range []string{"file_path", "path", "filename"} {
			p := gjson.GetBytes(steps[i].Parameters, k)
			if p.Type != gjson.String {
				continue
			}
			if name, err := resolve(p.Str); err == nil && changed[name] != "" {
				r.Reason = changed[name]
				break
			}
		}
	}
}

// recordedError reports whether the step's call failed when it was
// recorded: its error, or metadata.is_error as importers kept it before
// steps had one.
func recordedError(st *manifest.Step) bool {
	return st.Error != nil || len(st.Metadata) > 0 && gjson.GetBytes(st.Metadata, "is_error").Type == gjson.True
}

// recordedOutput reads a step's recorded output for a renderer.
func recordedOutput(s *store.Store, d digest.Digest) ([]byte, error) {
	r, err := s.Open(d)
	if err != nil {
		return nil, fmt.Errorf("reading the recorded output: %w", err)
	}
	defer r.Close()
	if r.Size() > maxRecorded {
		return nil, nil
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading the recorded output: %w", err)
	}
	return b, nil
}

func stepType(st *manifest.Step) string {
	if st.Type == "" {
		return "the"
	}
	return "the " + st.Type
}

// shellTools are tool names that run commands; their reason says why
// nothing ran.
var shellTools = map[string]bool{
	"bash": true, "sh": true, "shell": true, "zsh": true, "powershell": true,
	"exec": true, "execute": true, "run": true, "run_command": true,
	"execute_command": true, "run_shell_command": true, "terminal": true,
	"local_shell": true, "container.exec": true,
}

func noExecutorReason(tool string) string {
	hint := fmt.Sprintf("give one with --tool %s=CMD or in your ctx config", quoteTool(tool))
	if shellTools[strings.ToLower(tool)] {
		return fmt.Sprintf("tool %q runs commands and ctx never runs them by itself; %s", tool, hint)
	}
	return fmt.Sprintf("no executor for tool %q; %s", tool, hint)
}

func quoteTool(tool string) string {
	for _, c := range tool {
		if !(c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return "'" + strings.ReplaceAll(tool, "'", `'\''`) + "'"
		}
	}
	return tool
}

func environmentDrift(env manifest.Environment, opt Options) []Drift {
	goos, rt := opt.OS, opt.Runtime
	if goos == "" {
		goos = runtime.GOOS
	}
	if rt == "" {
		rt = runtime.Version()
	}
	var out []Drift
	if env.OS != "" && env.OS != goos {
		out = append(out, Drift{Type: DriftOS, Expected: env.OS, Actual: goos})
	}
	if env.Runtime != "" && env.Runtime != rt {
		out = append(out, Drift{Type: DriftRuntime, Expected: env.Runtime, Actual: rt})
	}
	return out
}

// versionDrift compares recorded tool versions with those of the executors
// that ran, for the tools the replayed steps used.
func versionDrift(recorded, used map[string]string) []Drift {
	var out []Drift
	for tool, actual := range used {
		want, ok := recorded[tool]
		if !ok || want == actual {
			continue
		}
		d := Drift{Type: DriftToolVersion, Tool: tool, Expected: want, Actual: actual}
		if actual == "" {
			d.Reason = "the executor declares no version"
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b Drift) int { return strings.Compare(a.Tool, b.Tool) })
	return out
}

// Range is an inclusive range of step indexes.
type Range struct{ From, To int }

// ParseSteps parses a step selection: comma-separated indexes and ranges,
// "3", "3-7", "3-" (to the last step), "-7" (from the first).
func ParseSteps(s string) ([]Range, error) {
	var out []Range
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		r := Range{From: 0, To: -1}
		var err error
		switch {
		case part == "" || isRange && lo == "" && hi == "":
			return nil, fmt.Errorf("parsing steps %q: empty range", s)
		case !isRange:
			r.From, err = stepIndex(lo)
			r.To = r.From
		default:
			if lo != "" {
				r.From, err = stepIndex(lo)
			}
			if err == nil && hi != "" {
				r.To, err = stepIndex(hi)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("parsing steps %q: %w", s, err)
		}
		if r.To >= 0 && r.To < r.From {
			return nil, fmt.Errorf("parsing steps %q: range %s ends before it starts", s, part)
		}
		out = append(out, r)
	}
	return out, nil
}

func stepIndex(s string) (int, error) {
	n := 0
	if s == "" || len(s) > 9 {
		return 0, fmt.Errorf("%q is not a step index", s)
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a step index", s)
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}

// ErrNoSteps reports a step selection that names no step of the pack.
var ErrNoSteps = errors.New("no such step")

func selectSteps(steps []manifest.Step, ranges []Range) ([]*manifest.Step, error) {
	var out []*manifest.Step
	if len(ranges) == 0 {
		for i := range steps {
			out = append(out, &steps[i])
		}
		return out, nil
	}
	for _, r := range ranges {
		switch {
		case len(steps) == 0:
			return nil, fmt.Errorf("selecting steps: the pack has no steps: %w", ErrNoSteps)
		case r.From >= len(steps) || r.To >= len(steps):
			return nil, fmt.Errorf("selecting steps: the pack has %d steps (0-%d): %w", len(steps), len(steps)-1, ErrNoSteps)
		}
	}
	for i := range steps {
		for _, r := range ranges {
			if i >= r.From && (r.To < 0 || i <= r.To) {
				out = append(out, &steps[i])
				break
			}
		}
	}
	return out, nil
}
