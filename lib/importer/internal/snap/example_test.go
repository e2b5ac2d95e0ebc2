package snap_test

import (
	"fmt"

	"github.com/ctx-tools/ctx/lib/importer/internal/snap"
)

type turn struct {
	id     string
	text   string
	parent *turn
}

type progress struct {
	turns []*turn
	byID  map[string]*turn
	read  int // bytes of the transcript read
}

// An import checkpoints its progress after the lines it has read, and
// resumes from it once the transcript has grown.
func Example() {
	transcript := []byte(`{"id":"a","text":"hello"}` + "\n" + `{"id":"b","text":"world"}` + "\n")
	a := &turn{id: string(transcript[7:8]), text: string(transcript[18:23])}
	b := &turn{id: string(transcript[33:34]), text: string(transcript[44:49]), parent: a}
	p := &progress{turns: []*turn{a, b}, byID: map[string]*turn{"a": a, "b": b}, read: len(transcript)}

	// Strings that are slices of the transcript would be written as
	// offsets; these are copies, so they are written out.
	data, err := snap.Encode(nil, p, transcript)
	if err != nil {
		fmt.Println(err)
		return
	}
	fingerprint := snap.Fingerprint(p) // recorded beside data

	grown := append(transcript, `{"id":"c","text":"again"}`+"\n"...)
	var q progress
	if snap.Fingerprint(&q) != fingerprint {
		return // another shape: import from the start
	}
	if err := snap.Decode(data, &q, grown); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(q.read, q.turns[1].text, q.turns[1].parent == q.byID["a"])
	// Output: 52 world true
}
