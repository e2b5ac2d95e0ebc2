package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
)

func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }

// TestScripts runs the scenarios with three commands of their own:
//
//	serve-start [ARGS...]  start ctx-serve ARGS in the background, its
//	                       stdout to serve.out, and set $BASE to its
//	                       first line's base URL once it listens
//	post PATH FILE         POST FILE to $BASE PATH: the answer on stdout,
//	                       "status N" on stderr
//	serve-stop             SIGTERM, then check it exited 0 within 5 s
func TestScripts(t *testing.T) {
	if err := e2e.Lint("testdata/script"); err != nil {
		t.Error(err)
	}
	p := e2e.Params("testdata/script")
	p.Cmds["serve-start"] = serveStart
	p.Cmds["serve-stop"] = serveStop
	p.Cmds["post"] = post
	testscript.Run(t, p)
}

var (
	mu      sync.Mutex
	running = map[*testscript.TestScript]*exec.Cmd{}
)

func serveStart(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! serve-start")
	}
	var bin string
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "ctx-serve")); err == nil {
			bin = filepath.Join(dir, "ctx-serve")
			break
		}
	}
	if bin == "" {
		ts.Fatalf("no ctx-serve on the script's PATH")
	}
	out, err := os.Create(ts.MkAbs("serve.out"))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	r, w := io.Pipe()
	cmd := exec.Command(bin, args...)
	cmd.Dir = ts.Getenv("WORK")
	cmd.Env = environ(ts)
	cmd.Stdout = io.MultiWriter(out, w)
	cmd.Stderr, _ = os.Create(ts.MkAbs("serve.err"))
	if err := cmd.Start(); err != nil {
		ts.Fatalf("starting ctx-serve: %v", err)
	}
	mu.Lock()
	running[ts] = cmd
	mu.Unlock()
	ts.Defer(func() { cmd.Process.Kill(); cmd.Wait(); out.Close() })
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		io.Copy(io.Discard, r)
	}()
	select {
	case l, ok := <-line:
		if !ok {
			ts.Fatalf("ctx-serve printed nothing")
		}
		ts.Setenv("BASE", gjson.Get(l, "base_urls.anthropic").String())
	case <-time.After(10 * time.Second):
		ts.Fatalf("ctx-serve did not say where it listens within 10 s")
	}
}

func serveStop(ts *testscript.TestScript, neg bool, args []string) {
	mu.Lock()
	cmd := running[ts]
	delete(running, ts)
	mu.Unlock()
	if cmd == nil {
		ts.Fatalf("no ctx-serve running")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			ts.Fatalf("ctx-serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		ts.Fatalf("ctx-serve did not stop within 5 s of SIGTERM")
	}
}

func post(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: post PATH FILE")
	}
	body, err := os.ReadFile(ts.MkAbs(args[1]))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	resp, err := http.Post(ts.Getenv("BASE")+args[0], "application/json", bytes.NewReader(body))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	ts.Stdout().Write(b)
	ts.Stderr().Write([]byte("status " + resp.Status[:3] + "\n"))
	if (resp.StatusCode != 200) != neg {
		ts.Fatalf("status %s", resp.Status)
	}
}

// environ is the script's environment, for a process it starts itself.
func environ(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "WORK", "TMPDIR", "CTX_STORE", "NO_COLOR", "GORACE"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return append(env, "PWD="+filepath.Clean(ts.Getenv("WORK")))
}
