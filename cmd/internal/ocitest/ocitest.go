// Package ocitest gives the end-to-end scenarios of ctx-push and ctx-pull
// registries to talk to. On top of cmd/internal/e2e's parameters, every
// script gets:
//
//	$REGISTRY   host:port of an in-process registry (go-containerregistry's,
//	            with the referrers API), fresh for each script
//
// and the command
//
//	docker-registry start|stop|restart
//	            run Debian's docker-registry (distribution 2.8) on
//	            127.0.0.1 on a free port, storing under $WORK/registry,
//	            and set $DOCKER_REGISTRY to its host:port; restart keeps
//	            the port and the storage. The script's end stops it.
//
// Scripts that need docker-registry begin with
//
//	[!exec:docker-registry] skip 'docker-registry is not installed (apt-get install docker-registry)'
package ocitest

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ctx-tools/ctx/cmd/internal/e2e"
)

// Params returns e2e.Params(dir) with the registries added.
func Params(dir string) testscript.Params {
	p := e2e.Params(dir)
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		if setup != nil {
			if err := setup(env); err != nil {
				return err
			}
		}
		srv := httptest.NewServer(registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0))))
		env.Defer(srv.Close)
		env.Setenv("REGISTRY", strings.TrimPrefix(srv.URL, "http://"))
		// No credentials of the machine's user leak into the tests.
		env.Setenv("DOCKER_CONFIG", filepath.Join(env.WorkDir, ".docker"))
		env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, ".cache"))
		return nil
	}
	p.Cmds["docker-registry"] = cmdDockerRegistry
	return p
}

// Registry is a running docker-registry.
type Registry struct {
	Addr string // host:port
	cmd  *exec.Cmd
	done chan error
}

// Start runs docker-registry serving root on addr (host:port; "" picks a
// free port on 127.0.0.1) and waits until it answers.
func Start(bin, root, addr string) (*Registry, error) {
	if addr == "" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		addr = l.Addr().String()
		l.Close()
	}
	if err := os.MkdirAll(filepath.Join(root, "data"), 0o755); err != nil {
		return nil, err
	}
	cfg := fmt.Sprintf(`version: 0.1
log: {level: error, accesslog: {disabled: true}}
storage: {filesystem: {rootdirectory: %s}, delete: {enabled: true}}
http: {addr: %s}
`, filepath.Join(root, "data"), addr)
	cfgPath := filepath.Join(root, "config.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(filepath.Join(root, "registry.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(bin, "serve", cfgPath)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &Registry{Addr: addr, cmd: cmd, done: make(chan error, 1)}
	go func() { r.done <- cmd.Wait() }()
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return r, nil
			}
		}
		select {
		case err := <-r.done:
			b, _ := os.ReadFile(filepath.Join(root, "registry.log"))
			return nil, fmt.Errorf("docker-registry exited: %v\n%s", err, b)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			r.Stop()
			return nil, fmt.Errorf("docker-registry did not answer on %s within 15s", addr)
		}
	}
}

// Stop kills the registry by its PID and waits for it to exit.
func (r *Registry) Stop() {
	r.cmd.Process.Kill()
	<-r.done
}

var (
	mu    sync.Mutex
	procs = map[string]*Registry{} // by script ($WORK)
)

func cmdDockerRegistry(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: docker-registry start|stop|restart")
	}
	// On the script's PATH, as [exec:docker-registry] looks.
	bin, err := lookPath(ts.Getenv("PATH"), "docker-registry")
	if err != nil {
		ts.Fatalf("docker-registry is not installed (apt-get install docker-registry)")
	}
	root := filepath.Join(ts.Getenv("WORK"), "registry")
	key := ts.Getenv("WORK")
	mu.Lock()
	r := procs[key]
	delete(procs, key)
	mu.Unlock()
	switch args[0] {
	case "start", "restart":
		addr := ""
		if r != nil {
			r.Stop()
			addr = r.Addr
		} else if args[0] == "restart" {
			ts.Fatalf("docker-registry restart: not running")
		}
		nr, err := Start(bin, root, addr)
		ts.Check(err)
		mu.Lock()
		procs[key] = nr
		mu.Unlock()
		if r == nil {
			ts.Defer(func() {
				mu.Lock()
				r := procs[key]
				delete(procs, key)
				mu.Unlock()
				if r != nil {
					r.Stop()
				}
			})
		}
		ts.Setenv("DOCKER_REGISTRY", nr.Addr)
	case "stop":
		if r == nil {
			ts.Fatalf("docker-registry stop: not running")
		}
		r.Stop()
	default:
		ts.Fatalf("usage: docker-registry start|stop|restart")
	}
}

// lookPath finds program in the directories of path.
func lookPath(path, program string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, program)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not on PATH", program)
}
