package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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

// ExitCode returns the exit code of the docs/design.md table for f: 0 exact, 1
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
	// Outputs compares the outputs of the pack that the session wrote
	// with the workspace after the last step (absent when the replay
	// stopped before it).
	Outputs []OutputResult `json:"outputs,omitempty"`

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
	// Outputs counts the outputs the session wrote that were compared
	// after the last step, and those the replay reproduced exactly.
	Outputs *OutputSummary `json:"outputs,omitempty"`
}

// OutputSummary counts the written outputs compared (Written) and those
// found equal (Reproduced).
type OutputSummary struct {
	Written    int `json:"written"`
	Reproduced int `json:"reproduced"`
}

func summarize(steps []StepResult, outputs []OutputResult) Summary {
	sum := Summary{Steps: len(steps)}
	if len(outputs) > 0 {
		sum.Outputs = &OutputSummary{Written: len(outputs)}
		for _, o := range outputs {
			if o.Status == Matched {
				sum.Outputs.Reproduced++
			}
		}
	}
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
	// ActualRef is set when the step diverged and what it produced (at
	// most MaxActual bytes) was stored as an object, Actual itself: it
	// is there to show (ctx-show --blob) and to compare with Expected.
	ActualRef  string `json:"actual_ref,omitempty"`
	Reason     string `json:"reason,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	// Changes are what a replayed edit did to the workspace's files.
	Changes []FileChange `json:"changes,omitempty"`
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
	// Until, if set, stops the replay after the step of that index: the
	// workspace is then as the session left it at that step (kept with
	// Keep or Dir).
	Until *int
	// Dir, if set, is where the temporary workspace is made instead of a
	// new directory under TempDir: a directory that does not exist yet,
	// or an empty one. It is kept.
	Dir string
	// Git, if set, is a git repository holding the commit the session
	// started from (the pack's environment.metadata.git): the workspace is
	// a temporary work tree of it at that commit, with the pack's inputs
	// over it, removed afterwards unless Keep.
	Git string
	// Tools are the user's executors by tool name; they take precedence
	// over built-ins, Agents and aliases.
	Tools map[string]Executor
	// Agents are agents' own tools by name, each replayed as its agent
	// renders the result, after Tools and the built-ins. The caller takes
	// them from the agents' packages (formats.ReplayTools).
	Agents map[string]Executor
	// Edits render the agents' answers to the edits a replay applies,
	// by tool name (a patch, whichever tool ran it, under "apply_patch").
	// The caller takes them from the agents' packages
	// (formats.ReplayEdits). An edit of a tool without one is applied and
	// its step skipped, as ctx's own write_file and edit_file are.
	Edits map[string]EditAnswerer
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
	// recorded). Renderers use it only to choose among notices and frames
	// that do not depend on the files (see package render), or to learn
	// that the recorded edit changed nothing (EditAnswerer.Unchanged),
	// never to make up a result.
	Recorded func() ([]byte, error)

	changes []FileChange // what an edit did, for the report
}

// maxRecorded bounds the recorded output a renderer may load.
const maxRecorded = 64 << 20

// RecordedOutput returns the step's recorded output, nil when none was
// recorded (see Recorded).
func (c *Call) RecordedOutput() ([]byte, error) {
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
	last := len(m.Steps) - 1
	if opt.Until != nil {
		if *opt.Until < 0 || *opt.Until > last {
			return nil, fmt.Errorf("replaying until step %d: the pack has %d steps (0-%d): %w", *opt.Until, len(m.Steps), last, ErrNoSteps)
		}
		last = *opt.Until
	}
	rep := &Report{Pack: m.Hash.String(), Steps: []StepResult{}, Drift: []Drift{}}
	var ws *Workspace
	switch {
	case opt.Git != "":
		var missing []Drift
		var remove func()
		ws, missing, remove, err = gitWorkspace(s, m, opt.Git, opt.TempDir)
		if err != nil {
			return nil, err
		}
		if opt.Keep {
			defer ws.Close()
		} else {
			defer remove()
		}
		rep.Drift = append(rep.Drift, missing...)
	case opt.Live != "":
		ws, err = OpenLive(opt.Live)
		if err != nil {
			return nil, err
		}
		defer ws.Close()
		rep.Drift = append(rep.Drift, ws.CheckInputs(s, m.Inputs)...)
	default:
		var missing []Drift
		if opt.Dir != "" {
			ws, missing, err = MaterialiseDir(s, m.Inputs, opt.Dir)
		} else {
			ws, missing, err = Materialise(s, m.Inputs, opt.TempDir)
		}
		if err != nil {
			return nil, err
		}
		if opt.Keep || opt.Dir != "" {
			defer ws.Close()
		} else {
			defer ws.Remove()
		}
		rep.Drift = append(rep.Drift, missing...)
	}
	rep.Workspace = ws.Dir
	ws.RecordedDir = recordedDir(m.Metadata)
	rep.Drift = append(rep.Drift, environmentDrift(m.Environment, opt)...)

	chosen := map[*manifest.Step]bool{}
	for _, st := range selected {
		if st.Index <= last || opt.Until == nil {
			chosen[st] = true
		}
	}
	versions := map[string]string{}
	pos, total := 0, len(chosen)
	for i := range m.Steps[:last+1] {
		st := &m.Steps[i]
		if !chosen[st] {
			// A step left out still changes the files when it is an edit,
			// so that the steps after it see them as the session did.
			if ed := editorFor(st, opt.Tools, opt.Edits); ed != nil && !recordedError(st) {
				call := &Call{Tool: st.Tool, Index: st.Index, Parameters: st.Parameters, Workspace: ws}
				if !st.OutputRef.IsZero() {
					call.Recorded = func() ([]byte, error) { return recordedOutput(s, st.OutputRef) }
				}
				ed.Run(ctx, call, io.Discard)
			}
			continue
		}
		pos++
		if opt.Progress != nil {
			opt.Progress(pos, total, st)
		}
		r, ex := replayStep(ctx, s, ws, st, opt)
		if (r.Status == Diverged || r.Status == DivergedExpected || r.Status == Failed) && editorFor(st, opt.Tools, opt.Edits) == nil {
			if why, ok := touchesUnknown(st, ws); ok {
				r.Status = Skipped
				r.Reason = why
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
	if last == len(m.Steps)-1 {
		rep.Outputs = checkOutputs(ws, m.Outputs)
	}
	rep.Drift = append(rep.Drift, versionDrift(m.Environment.ToolVersions, versions)...)
	nameChangedInputs(rep, chosenSteps(m.Steps, chosen))
	rep.Summary = summarize(rep.Steps, rep.Outputs)
	rep.Fidelity = grade(rep)
	return rep, nil
}

func chosenSteps(steps []manifest.Step, chosen map[*manifest.Step]bool) []*manifest.Step {
	var out []*manifest.Step
	for i := range steps {
		if chosen[&steps[i]] {
			out = append(out, &steps[i])
		}
	}
	return out
}

// OutputResult compares an output of the pack that the session wrote with
// what the replayed edits left in the workspace: matched, diverged, or
// skipped when an edit of it could not be replayed (the reason says
// which).
type OutputResult struct {
	Name     string `json:"name"`
	Status   Status `json:"status"`
	Expected string `json:"expected"`
	Actual   string `json:"actual,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// checkOutputs compares each output the replayed edits wrote, or tried
// to, with the workspace.
func checkOutputs(ws *Workspace, outputs []manifest.Output) []OutputResult {
	var out []OutputResult
	for _, o := range outputs {
		why, unknown := ws.unknown[o.Name]
		if !ws.written[o.Name] && !unknown {
			continue
		}
		if unknown {
			out = append(out, OutputResult{Name: o.Name, Expected: o.ContentRef.String(), Status: Skipped, Reason: o.Name + " is not known: " + why})
			continue
		}
		out = append(out, ws.CompareOutput(o))
	}
	return out
}

// CompareOutput compares the recorded output o with the workspace's file
// of its name: matched when the bytes are the same, else diverged (a file
// missing or unreadable says why).
func (w *Workspace) CompareOutput(o manifest.Output) OutputResult {
	r := OutputResult{Name: o.Name, Expected: o.ContentRef.String()}
	switch got, err := w.hash(o.Name); {
	case err != nil:
		r.Status, r.Reason = Diverged, err.Error()
	case got == o.ContentRef:
		r.Status, r.Actual = Matched, got.String()
	default:
		r.Status, r.Actual = Diverged, got.String()
	}
	return r
}

func grade(rep *Report) Fidelity {
	f := Exact
	for _, d := range rep.Drift {
		if d.Type == DriftMissingInput {
			return Lost
		}
	}
	for _, r := range rep.Steps {
		switch {
		case r.Status == Failed && r.Deterministic:
			return Lost
		case r.Status == Failed, r.Status == Diverged && r.Deterministic:
			// A non-deterministic step that ctx ran and could not
			// complete proves nothing either way, but it is no exact
			// replay.
			f = Degraded
		}
	}
	for _, o := range rep.Outputs {
		if o.Status == Diverged {
			f = Degraded
		}
	}
	if f == Exact && rep.Summary.Verified == 0 {
		return Unverified
	}
	return f
}

// touchesUnknown reports a file whose content the replay no longer knows
// (an edit it could not carry out changed it) that deterministic step st
// reads, or under the directory it searches: a difference then says
// nothing about the step.
func touchesUnknown(st *manifest.Step, ws *Workspace) (string, bool) {
	if st.Tool == "" || len(ws.unknown) == 0 {
		return "", false
	}
	scope := "."
	for _, k := range []string{"file_path", "path", "filename", "notebook_path"} {
		p := gjson.GetBytes(st.Parameters, k)
		if p.Type != gjson.String {
			continue
		}
		name, err := Resolve(ws.Local(p.Str))
		if err != nil {
			return "", false // the executor says what is wrong with it
		}
		scope = name
		break
	}
	best := ""
	for name := range ws.unknown {
		if (scope == "." || name == scope || strings.HasPrefix(name, scope+"/")) && (best == "" || name < best) {
			best = name
		}
	}
	if best == "" {
		return "", false
	}
	return fmt.Sprintf("%s is not known: %s", best, ws.unknown[best]), true
}

func replayStep(ctx context.Context, s *store.Store, ws *Workspace, st *manifest.Step, opt Options) (StepResult, Executor) {
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
		if ex = editorFor(st, opt.Tools, opt.Edits); ex != nil {
			// An edit is a file operation: given the files, its effect
			// and its answer are determined, whatever the pack says.
			r.Deterministic = true
			break
		}
		ex = Lookup(st.Tool, opt.Tools, opt.Agents)
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
	kept := &boundedBuffer{max: MaxActual}
	start := time.Now()
	call := &Call{Tool: st.Tool, Index: st.Index, Parameters: st.Parameters, Workspace: ws}
	if !st.OutputRef.IsZero() {
		call.Recorded = func() ([]byte, error) { return recordedOutput(s, st.OutputRef) }
	}
	err := ex.Run(ctx, call, io.MultiWriter(h, kept))
	r.DurationMS = time.Since(start).Milliseconds()
	r.Changes = call.changes
	var skip *render.Unsupported
	var outside *outsideError
	var div *divergence
	switch {
	case errors.As(err, &skip):
		r.Status = Skipped
		r.Reason = skip.Reason
		return r, ex
	case errors.As(err, &outside):
		r.Status = Skipped
		r.Reason = err.Error()
		return r, ex
	case errors.As(err, &div):
		r.Status = Diverged
		r.Reason = div.reason
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
	case r.Deterministic:
		r.Status = Diverged
	default:
		r.Status = DivergedExpected
	}
	if r.Status != Matched && !kept.over && !st.OutputRef.IsZero() && s != nil {
		// Kept to show what differs. An object no pack references:
		// ctx-gc collects it in time.
		if d, _, err := s.Put(kept.b.Bytes()); err == nil && d == got {
			r.ActualRef = d.String()
		}
	}
	return r, ex
}

// MaxActual is the most of a diverged step's output a replay keeps in
// the store (StepResult.ActualRef).
const MaxActual = 16 << 20

// boundedBuffer keeps what is written to it up to max bytes; over says
// more came.
type boundedBuffer struct {
	b    bytes.Buffer
	max  int
	over bool
}

func (k *boundedBuffer) Write(p []byte) (int, error) {
	if !k.over && k.b.Len()+len(p) <= k.max {
		k.b.Write(p)
	} else {
		k.over = true
		k.b.Reset()
	}
	return len(p), nil
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
			if name, err := Resolve(p.Str); err == nil && changed[name] != "" {
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
