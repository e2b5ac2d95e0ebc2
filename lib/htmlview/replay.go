package htmlview

import (
	"html/template"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/drift"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/replay"
)

// replayView is what a replay adds to the pack page.
type replayView struct {
	Fidelity string
	// Class styles the banner: the fidelity's, except that an exact
	// replay which left steps unverified is shown as partial, not as a
	// success.
	Class string
	// Verified counts the steps whose replayed output matched the
	// recording, out of Total steps in the pack.
	Verified, Total int
	Statuses        []statusCount
	// Problems are the steps that diverged or failed, in pack order.
	Problems []statusStep
	Drift    []Text
	// Outputs are the written outputs compared after the last step.
	Outputs []outputCheck
}

// outputCheck is a written output compared with the workspace.
type outputCheck struct {
	Status, Class string
	Name, Reason  Text
}

// notReplayed marks the steps a replay left out (--steps).
const notReplayed replay.Status = "not_replayed"

type statusStep struct {
	Index  int
	Status string
}

type statusCount struct {
	Status string
	N      int
}

// stepReplay is one step's replay outcome.
type stepReplay struct {
	Status           Text
	Class            string // the status, when it is one of replay's
	Reason           Text
	Expected, Actual Text
	// Diff is the unified diff of the recorded output and the one the
	// replay kept (StepResult.ActualRef), when both are text within
	// DefaultMaxInline.
	Diff       template.HTML
	DurationMS int64
}

// outputDiff returns the diff of a diverged step's recorded output and
// the output the replay kept, when both are text small enough to show.
func outputDiff(objs Objects, s replay.StepResult) template.HTML {
	if s.ActualRef == "" || s.Expected == "" {
		return ""
	}
	var texts [2][]byte
	for i, ref := range []string{s.Expected, s.ActualRef} {
		d, err := digest.Parse(ref)
		if err != nil {
			return ""
		}
		if n, err := objs.Size(d); err != nil || n > DefaultMaxInline {
			return ""
		}
		b, err := objs.Get(d)
		if err != nil || !drift.IsText(b) {
			return ""
		}
		texts[i] = b
	}
	d, _ := drift.Unified("output", texts[0], texts[1], 0, 0, 0)
	if d == "" {
		return ""
	}
	return udiff(d)
}

// statusClass names the style of a step status; a status replay does not
// define gets none of its own.
func statusClass(s replay.Status) string {
	switch s {
	case replay.Matched, replay.Diverged, replay.DivergedExpected, replay.Failed, replay.Skipped, notReplayed:
		return string(s)
	}
	return "other"
}

// Replay renders the page of pack m with the outcome of replaying it: the
// fidelity, each step's status, and the dependencies that drifted.
func Replay(m *manifest.Manifest, r *replay.Report, objs Objects, opt Options) ([]byte, error) {
	p, err := buildPack(m, objs, opt)
	if err != nil {
		return nil, err
	}
	v := &replayView{Fidelity: string(r.Fidelity), Class: "fid-" + string(r.Fidelity), Total: len(m.Steps), Verified: r.Summary.Verified}
	if r.Fidelity == replay.Exact && v.Verified < v.Total {
		v.Class = "fid-partial"
	}
	byIndex := map[int]*stepReplay{}
	changes := map[int][]replay.FileChange{}
	count := map[replay.Status]int{}
	for _, s := range r.Steps {
		count[s.Status]++
		byIndex[s.Index] = &stepReplay{
			Status:     vis(string(s.Status)),
			Class:      statusClass(s.Status),
			Reason:     vis(s.Reason),
			DurationMS: s.DurationMS,
		}
		if s.Status == replay.Diverged || s.Status == replay.DivergedExpected {
			byIndex[s.Index].Expected, byIndex[s.Index].Actual = vis(s.Expected), vis(s.Actual)
			byIndex[s.Index].Diff = outputDiff(objs, s)
		}
		if len(s.Changes) > 0 {
			changes[s.Index] = s.Changes
		}
	}
	// What the replay did, not what the pack says it would.
	p.setChanges(changes)
	for _, o := range r.Outputs {
		v.Outputs = append(v.Outputs, outputCheck{Status: string(o.Status), Class: statusClass(o.Status), Name: vis(o.Name), Reason: vis(o.Reason)})
	}
	for _, st := range []replay.Status{replay.Matched, replay.Diverged, replay.DivergedExpected, replay.Failed, replay.Skipped} {
		if n := count[st]; n > 0 {
			v.Statuses = append(v.Statuses, statusCount{string(st), n})
		}
	}
	for _, d := range r.Drift {
		v.Drift = append(v.Drift, vis(d.Text()))
	}
	for i := range p.Steps {
		p.Steps[i].Replay = byIndex[p.Steps[i].Index]
		if r := p.Steps[i].Replay; r != nil && (r.Class == string(replay.Diverged) || r.Class == string(replay.Failed)) {
			v.Problems = append(v.Problems, statusStep{p.Steps[i].Index, r.Class})
		}
		if p.Steps[i].Replay == nil {
			p.Steps[i].Replay = &stepReplay{Status: vis(string(notReplayed)), Class: string(notReplayed)}
		}
	}
	p.Replay = v
	return render("ctx replay "+shortRef(m.Hash.String()), page{Pack: p}, p.sizeHint())
}
