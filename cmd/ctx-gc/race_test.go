package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
)

// TestConcurrentPacks runs ctx-gc while ctx-pack processes write packs
// that reuse the objects of the snapshots ctx-gc drops, and while another
// ctx-pack is killed with SIGKILL in the middle of its writes. Every pack
// a ctx-pack reported must be whole afterwards, and the store must verify:
// ctx-gc never removes an object a pack being written needs.
func TestConcurrentPacks(t *testing.T) {
	for round := range 12 {
		dir := t.TempDir()
		run(t, dir, "ctx-init")
		// Two snapshots of one session: the first, superseded, alone holds
		// the content the packs below reuse.
		shared := make([]string, 4)
		for i := range shared {
			shared[i] = fmt.Sprintf("round %d shared %d ", round, i) + strings.Repeat("s", 100_000+i)
		}
		steps := func(outputs ...string) string {
			var b []string
			for _, o := range outputs {
				b = append(b, fmt.Sprintf(`{"type":"llm_call","output":%q}`, o))
			}
			return "[" + strings.Join(b, ",") + "]"
		}
		session := `"created":"2026-03-01T10:00:00Z","model":{"identifier":"m"},"metadata":{"session":{"sessionId":"s"}}`
		write(t, dir, "s1.json", `{`+session+`,"steps":`+steps(shared...)+`}`)
		write(t, dir, "s2.json", `{`+session+`,"steps":`+steps("a", "b", "c", "d", "e")+`}`)
		s1 := gjson.Get(run(t, dir, "ctx-pack", "s1.json"), "hash").String()
		run(t, dir, "ctx-pack", "s2.json")

		const packers = 4
		for p := range packers {
			write(t, dir, fmt.Sprintf("p%d.json", p), fmt.Sprintf(`{"created":"2026-03-02T10:00:00Z","model":{"identifier":"m"},"steps":%s}`,
				steps(shared[p%len(shared)], shared[(p+1)%len(shared)], fmt.Sprintf("new %d %d", round, p))))
		}
		big := make([]string, 200)
		for i := range big {
			big[i] = fmt.Sprintf("big %d %d ", round, i) + strings.Repeat("b", 20_000)
		}
		write(t, dir, "big.json", `{"created":"2026-03-03T10:00:00Z","model":{"identifier":"m"},"steps":`+steps(append(big, shared...)...)+`}`)

		type result struct {
			name      string
			out, errb bytes.Buffer
			err       error
		}
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			results []*result
		)
		start := make(chan struct{})
		launch := func(name string, args ...string) {
			r := &result{name: name + " " + strings.Join(args, " ")}
			mu.Lock()
			results = append(results, r)
			mu.Unlock()
			wg.Go(func() {
				<-start
				time.Sleep(time.Duration(rand.IntN(30)) * time.Millisecond)
				cmd := exec.Command(e2e.Bin(name), args...)
				cmd.Dir = dir
				cmd.Stdout, cmd.Stderr = &r.out, &r.errb
				r.err = cmd.Run()
			})
		}
		launch("ctx-gc", "--grace", "0")
		for p := range packers {
			launch("ctx-pack", fmt.Sprintf("p%d.json", p))
		}
		launch("ctx-gc", "--grace", "0")
		// One writer dies midway, holding the writers' lock.
		wg.Go(func() {
			<-start
			cmd := exec.Command(e2e.Bin("ctx-pack"), "big.json")
			cmd.Dir = dir
			if err := cmd.Start(); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Duration(5+rand.IntN(40)) * time.Millisecond)
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
		})
		close(start)
		wg.Wait()

		for _, r := range results {
			if r.err != nil {
				t.Fatalf("round %d: %s: %v\n%s", round, r.name, r.err, r.errb.String())
			}
			if !strings.HasPrefix(r.name, "ctx-pack") {
				continue
			}
			h := gjson.Get(r.out.String(), "hash").String()
			if out, err := command(dir, "ctx-verify", "--pack", h); err != nil {
				t.Errorf("round %d: %s made %s, which ctx-gc broke: %v\n%s", round, r.name, h, err, out)
			}
		}
		if out, err := command(dir, "ctx-verify", "--fsck"); err != nil {
			t.Fatalf("round %d: ctx-verify --fsck after concurrent ctx-gc and ctx-pack: %v\n%s", round, err, out)
		}
		// And once more, alone, with everything settled.
		run(t, dir, "ctx-gc", "--grace", "0")
		if out, err := command(dir, "ctx-verify", "--fsck"); err != nil {
			t.Fatalf("round %d: ctx-verify --fsck after ctx-gc: %v\n%s", round, err, out)
		}
		if out, err := command(dir, "ctx-show", s1); err == nil {
			t.Fatalf("round %d: the superseded snapshot survived: %s", round, out)
		}
	}
}

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	out, err := command(dir, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func command(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(e2e.Bin(name), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}
