package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
	"github.com/tidwall/gjson"
)

// TestTagRace runs many ctx-pack --tag T at once, each with its own log:
// one wins; every other one either fails having changed nothing (its pack
// is not in the store, latest does not name it) or did not fail.
func TestTagRace(t *testing.T) {
	for round := range 3 {
		dir, s := initStore(t)
		const procs = 12
		type run struct {
			out, errb bytes.Buffer
			err       error
		}
		runs := make([]*run, procs)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for p := range procs {
			log := filepath.Join(dir, fmt.Sprintf("log%d.json", p))
			body := fmt.Sprintf(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"inputs":[{"name":"a.txt","content":%q}],"steps":[]}`, strings.Repeat(fmt.Sprint(p), 50000))
			if err := os.WriteFile(log, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			r := &run{}
			runs[p] = r
			wg.Go(func() {
				cmd := exec.Command(e2e.Bin("ctx-pack"), "--tag", "shared", log)
				cmd.Dir = dir
				cmd.Stdout, cmd.Stderr = &r.out, &r.errb
				<-start
				r.err = cmd.Run()
			})
		}
		close(start)
		wg.Wait()
		tag, err := s.Ref("shared")
		if err != nil {
			t.Fatal(err)
		}
		packs, err := s.Packs("")
		if err != nil {
			t.Fatal(err)
		}
		ok := 0
		for p, r := range runs {
			if r.err == nil {
				ok++
				if h := gjson.Get(r.out.String(), "hash").String(); h != tag.String() {
					t.Errorf("round %d: ctx-pack %d succeeded with %s, but the tag points at %s", round, p, h, tag)
				}
				continue
			}
			if !strings.Contains(r.errb.String(), "tag shared already points at") {
				t.Errorf("round %d: ctx-pack %d: %v\n%s", round, p, r.err, r.errb.String())
			}
		}
		if ok != 1 || len(packs) != ok {
			t.Errorf("round %d: %d runs succeeded and the store holds %d packs: a failed ctx-pack --tag changed the store", round, ok, len(packs))
		}
	}
}
