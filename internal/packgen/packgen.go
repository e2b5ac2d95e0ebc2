// Package packgen fills a store with many small, distinct, finalized packs
// for benchmarks and tests of listing: each pack has a prompt, an input, a
// few steps and an output, and packs form parent chains.
package packgen

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/digest"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/store"
)

// Options shapes the generated packs.
type Options struct {
	N       int           // number of packs
	Start   time.Time     // created of pack 0 (default 2026-01-01T00:00:00Z)
	Step    time.Duration // created advances by Step every Same packs (default 1s)
	Same    int           // packs sharing one created time (default 1)
	Chain   int           // packs per parent chain (default 10; 1: no parents)
	Models  []string      // model identifiers, used in turn
	Workers int           // concurrent writers (default 2·GOMAXPROCS)
	// Content, when above 0, gives each pack a distinct first tool output
	// of about Content bytes of text (Text): a store of N packs then holds
	// about N·Content bytes of distinct objects, for searching.
	Content int
}

// Generate writes o.N packs into s through store.Put and manifest.Commit
// and returns their digests in generation order. Objects are not synced
// (store.SyncNone): the packs are benchmark fixtures, and syncing 100,000
// of them would measure the disk, not ctx.
func Generate(s *store.Store, o Options) ([]digest.Digest, error) {
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if o.Step == 0 {
		o.Step = time.Second
	}
	o.Same = max(o.Same, 1)
	if o.Chain <= 0 {
		o.Chain = 10
	}
	if len(o.Models) == 0 {
		o.Models = []string{"gpt-4o", "claude-sonnet-4", "llama-3.1-70b"}
	}
	if o.Workers <= 0 {
		o.Workers = 2 * runtime.GOMAXPROCS(0)
	}
	s.SetSyncMode(store.SyncNone)
	shared := map[string]digest.Digest{}
	for _, c := range []string{systemPrompt, prompt, input} {
		d, _, err := s.Put([]byte(c))
		if err != nil {
			return nil, err
		}
		shared[c] = d
	}
	out := make([]digest.Digest, o.N)
	chains := (o.N + o.Chain - 1) / o.Chain
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     int
	)
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				c := next
				next++
				stop := firstErr != nil
				mu.Unlock()
				if stop || c >= chains {
					return
				}
				var parent digest.Digest
				for i := c * o.Chain; i < min((c+1)*o.Chain, o.N); i++ {
					d, err := one(s, o, i, parent, shared)
					if err != nil {
						mu.Lock()
						firstErr = err
						mu.Unlock()
						return
					}
					out[i], parent = d, d
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

const (
	systemPrompt = "You are a careful engineer."
	prompt       = "Fix the failing test."
	input        = "package main\n\nfunc main() {}\n"
)

// one writes pack i.
func one(s *store.Store, o Options, i int, parent digest.Digest, shared map[string]digest.Digest) (digest.Digest, error) {
	created := o.Start.Add(time.Duration(i/o.Same) * o.Step)
	result := []byte("result of run " + strconv.Itoa(i) + "\n")
	rd, _, err := s.Put(result)
	if err != nil {
		return digest.Digest{}, err
	}
	m := &manifest.Manifest{
		Version: manifest.Version,
		Created: created.Format(time.RFC3339),
		Parent:  parent,
		Model: manifest.Model{
			Identifier: o.Models[i%len(o.Models)],
			Parameters: jsontext.Value(`{"seed":` + strconv.Itoa(i) + `,"temperature":0}`),
		},
		SystemPrompt: shared[systemPrompt],
		Prompts:      []manifest.Prompt{{Role: "user", ContentRef: shared[prompt]}},
		Inputs:       []manifest.File{{Name: "main.go", ContentRef: shared[input], Size: int64(len(input))}},
		Outputs:      []manifest.Output{{Name: "result.md", ContentRef: rd, Size: int64(len(result))}},
		Environment:  manifest.Environment{OS: "linux", Runtime: "go1.26"},
	}
	for k := range 1 + i%5 {
		m.Steps = append(m.Steps, manifest.Step{
			Index: k, Type: manifest.ToolCall, Tool: "read_file",
			Parameters: jsontext.Value(`{"path":"main.go"}`), OutputRef: m.Inputs[0].ContentRef,
			Deterministic: true, Timestamp: created.Format(time.RFC3339),
		})
	}
	if o.Content > 0 {
		d, _, err := s.Put(Text(uint64(i), o.Content))
		if err != nil {
			return digest.Digest{}, err
		}
		m.Steps[0].Tool, m.Steps[0].Parameters, m.Steps[0].OutputRef = "bash", jsontext.Value(`{"command":"make test"}`), d
	}
	d, _, err := manifest.Commit(s, m)
	if err != nil {
		return digest.Digest{}, fmt.Errorf("generating pack %d: %w", i, err)
	}
	return d, nil
}

// words make Text's lines: what build and test logs hold.
var words = strings.Fields(`the a of to in is for and on at with from by as not be this that error warning
	info debug failed passed ok test build run main func return if else nil err value file line package import
	type struct string int bool true false config server client request response status timeout retry cache
	index update delete create read write open close start stop user session token handler module version`)

// Text returns about n bytes of log-like text, lines of words and
// numbers, the same for the same seed and distinct across seeds. About
// one line in 16,384 reads "panic: deadline exceeded …", a phrase no
// other line holds, for searches that match rarely.
func Text(seed uint64, n int) []byte {
	x := seed*0x9e3779b97f4a7c15 + 1
	next := func() uint64 { // xorshift64*
		x ^= x >> 12
		x ^= x << 25
		x ^= x >> 27
		return x * 0x2545f4914f6cdd1d
	}
	b := make([]byte, 0, n+128)
	for len(b) < n {
		r := next()
		if r%16384 == 0 {
			b = append(b, "panic: deadline exceeded after "...)
			b = strconv.AppendUint(b, r>>40, 10)
			b = append(b, "ms\n"...)
			continue
		}
		b = strconv.AppendUint(b, seed, 10)
		b = append(b, ' ')
		for k := range 6 + r%8 {
			w := next()
			b = append(b, words[w%uint64(len(words))]...)
			if k%4 == 3 {
				b = append(b, ' ')
				b = strconv.AppendUint(b, w>>50, 10)
			}
			b = append(b, ' ')
		}
		b[len(b)-1] = '\n'
	}
	return b
}
