package claudecode

import (
	"bytes"
	"time"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/lib/importer"
)

// A Claude Code session's subagents write their records to transcripts
// of their own; read one after the other, a subagent's steps would all
// follow the session's. interleave and interleaveLines put them back in
// the order they happened, by their timestamps.

// interleave returns msgs, the session's messages followed by those of
// its subagents' transcripts (fileOf: the transcript each came from, from
// 1; the session's are not in it), merged in time: a message goes before
// every later one of the other transcripts, the session's first on equal
// times, and never before the message holding the Task call that started
// its subagent. A message without a timestamp keeps its place after the
// one before it in its transcript.
func interleave(msgs []*importer.Msg, fileOf map[*importer.Msg]int, sc *sidechains) []*importer.Msg {
	if len(fileOf) == 0 {
		return msgs
	}
	n := 0
	for _, f := range fileOf {
		n = max(n, f)
	}
	seqs := make([][]*importer.Msg, n+1)
	holder := map[*importer.Call]*importer.Msg{}
	for _, m := range msgs {
		seqs[fileOf[m]] = append(seqs[fileOf[m]], m)
		for _, c := range m.Calls {
			holder[c] = m
		}
	}
	at := map[*importer.Msg]time.Time{}
	for _, seq := range seqs {
		var last time.Time
		for _, m := range seq {
			if t, err := time.Parse(time.RFC3339Nano, m.TS); err == nil {
				last = t
			}
			at[m] = last
		}
	}
	done := map[*importer.Msg]bool{}
	next := make([]int, len(seqs))
	out := make([]*importer.Msg, 0, len(msgs))
	for len(out) < len(msgs) {
		best, waiting := -1, -1
		for f, seq := range seqs {
			if next[f] == len(seq) {
				continue
			}
			m := seq[next[f]]
			if waiting < 0 {
				waiting = f
			}
			if p := sc.parents[sc.of[m]]; f > 0 && p != nil && holder[p] != nil && !done[holder[p]] {
				continue // its Task call is still to come
			}
			if best < 0 || at[m].Before(at[seqs[best][next[best]]]) {
				best = f
			}
		}
		if best < 0 {
			best = waiting
		}
		m := seqs[best][next[best]]
		next[best]++
		done[m] = true
		out = append(out, m)
	}
	return out
}

// interleaveLines returns the lines of the session's transcript and its
// subagents' (transcripts[0] and the rest), merged by their timestamps
// as interleave merges messages, for the workspace to follow the files
// in the order they were read and written.
func interleaveLines(transcripts [][]byte) []byte {
	if len(transcripts) == 1 {
		return transcripts[0]
	}
	type line struct {
		text []byte
		at   time.Time
	}
	seqs := make([][]line, len(transcripts))
	total := 0
	for f, data := range transcripts {
		var last time.Time
		for l := range bytes.SplitSeq(data, []byte("\n")) {
			if t, err := time.Parse(time.RFC3339Nano, gjson.GetBytes(l, "timestamp").String()); err == nil {
				last = t
			}
			seqs[f] = append(seqs[f], line{l, last})
		}
		total += len(data) + 1
	}
	out := make([]byte, 0, total)
	next := make([]int, len(seqs))
	for {
		best := -1
		for f, seq := range seqs {
			if next[f] < len(seq) && (best < 0 || seq[next[f]].at.Before(seqs[best][next[best]].at)) {
				best = f
			}
		}
		if best < 0 {
			return out
		}
		out = append(append(out, seqs[best][next[best]].text...), '\n')
		next[best]++
	}
}
