// Package packgen fills a store with many small, distinct, finalized packs
// for benchmarks and tests of listing: each pack has a prompt, an input, a
// few steps and an output, and packs form parent chains.
package packgen

import (
	"fmt"
	"runtime"
	"strconv"
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
	d, _, err := manifest.Commit(s, m)
	if err != nil {
		return digest.Digest{}, fmt.Errorf("generating pack %d: %w", i, err)
	}
	return d, nil
}
