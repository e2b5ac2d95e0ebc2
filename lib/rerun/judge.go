package rerun

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/replay"
	"github.com/ctx-tools/ctx/lib/serve"
)

// judge sets each recorded step's outcome from the requests served. A
// model turn is matched when a request it answered matched the
// recording, diverged when the request at its place did not (with the
// first difference); a tool call is matched when the request that sent
// its result matched, diverged when that result is the difference.
// Everything else is skipped, with the reason.
func (rep *Report) judge(m *manifest.Manifest, events []serve.Event) {
	byStep := map[int][]serve.Event{}
	for _, e := range events {
		if e.Step != nil {
			byStep[*e.Step] = append(byStep[*e.Step], e)
		}
	}
	// next[i] is the llm_call step that follows tool call i in its
	// agent's thread: the request that sends i's result.
	next := map[int]int{}
	var pending = map[string][]int{} // agent -> tool calls waiting for the next turn
	for _, st := range m.Steps {
		switch st.Type {
		case manifest.LLMCall:
			for _, i := range pending[st.Agent] {
				next[i] = st.Index
			}
			pending[st.Agent] = nil
		case manifest.ToolCall:
			pending[st.Agent] = append(pending[st.Agent], st.Index)
		}
	}
	for _, st := range m.Steps {
		r := StepResult{Index: st.Index, Type: st.Type, Tool: st.Tool, Agent: st.Agent}
		switch st.Type {
		case manifest.LLMCall:
			r.Status, r.Difference, r.Reason = outcome(byStep[st.Index], "")
			if r.Status == "" {
				r.Status, r.Reason = replay.Skipped, "the agent never asked for this turn"
			}
		default:
			n, ok := next[st.Index]
			if !ok {
				r.Status, r.Reason = replay.Skipped, "no later turn of its agent sends its result"
				break
			}
			id := gjson.GetBytes(st.Metadata, "call_id").String()
			r.Status, r.Difference, r.Reason = outcome(byStep[n], id)
			if r.Status == "" {
				r.Status, r.Reason = replay.Skipped, fmt.Sprintf("the agent never sent its result (step %d was not asked for)", n)
			}
		}
		rep.Steps = append(rep.Steps, r)
	}
}

// outcome reads the requests answered at one turn's place. For a tool
// call (callID set), a difference elsewhere in the request leaves the
// call unverified.
func outcome(events []serve.Event, callID string) (replay.Status, *serve.Difference, string) {
	var miss *serve.Event
	for i, e := range events {
		switch e.Match {
		case "exact", "retry":
			return replay.Matched, nil, ""
		case "upstream":
			if e.Difference == nil && callID != "" {
				// The request matched the recording up to the turn
				// the upstream answered: the result was compared.
				return replay.Matched, nil, ""
			}
			if e.Difference == nil {
				return replay.Skipped, nil, "answered by the upstream (a fork from an earlier step)"
			}
			fallthrough
		case "miss":
			if miss == nil {
				miss = &events[i]
			}
		}
	}
	if miss == nil {
		return "", nil, ""
	}
	d := miss.Difference
	if d == nil {
		return replay.Diverged, nil, miss.Error
	}
	if callID != "" && !strings.HasPrefix(d.Where, "tool result "+callID+" ") && d.Where != "tool result "+callID {
		return replay.Skipped, nil, "not compared: the request that sent its result differed first at " + d.Where
	}
	return replay.Diverged, d, ""
}

// compareOutputs compares each recorded output with the workspace.
func compareOutputs(ws *replay.Workspace, outputs []manifest.Output) []replay.OutputResult {
	var out []replay.OutputResult
	for _, o := range outputs {
		out = append(out, ws.CompareOutput(o))
	}
	return out
}

func summarize(steps []StepResult, outputs []replay.OutputResult) replay.Summary {
	sum := replay.Summary{Steps: len(steps)}
	for _, r := range steps {
		switch r.Status {
		case replay.Matched:
			sum.Matched++
		case replay.Diverged:
			sum.Diverged++
		case replay.Skipped:
			sum.Skipped++
		case replay.Failed:
			sum.Failed++
		}
	}
	sum.Verified = sum.Matched
	if len(outputs) > 0 {
		sum.Outputs = &replay.OutputSummary{Written: len(outputs)}
		for _, o := range outputs {
			if o.Status == replay.Matched {
				sum.Outputs.Reproduced++
			}
		}
	}
	return sum
}

// fidelity is exact when every step matched and every output is
// byte-identical; failed when the agent could not run; else degraded.
func (rep *Report) fidelity() replay.Fidelity {
	for _, r := range rep.Runs {
		if r.Error != "" && r.ExitCode == -1 {
			return replay.Lost
		}
	}
	if rep.Summary.Matched == 0 {
		return replay.Unverified
	}
	if rep.Summary.Matched != rep.Summary.Steps {
		return replay.Degraded
	}
	for _, o := range rep.Outputs {
		if o.Status != replay.Matched {
			return replay.Degraded
		}
	}
	return replay.Exact
}

func gjsonString(b []byte, path string) string { return gjson.GetBytes(b, path).String() }
