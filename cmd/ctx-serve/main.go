// Command ctx-serve answers model API requests from packs, so that a real
// agent can run again against its own record: it listens on a loopback
// address, prints one JSON line with the address, its PID and a base URL
// per API, then one JSON line per request served (which pack and step
// answered, how it matched, the request's hash, and for a miss the first
// difference from the recording).
//
//	ctx-serve latest | jq
//
// It reads pack references (arguments, else stdin) and writes JSON Lines
// on stdout until SIGINT or SIGTERM. With --upstream it forwards what the
// packs cannot answer (and, with --from N, every turn from step N on) to
// a real endpoint; with --record FILE and no pack it is a recording proxy
// whose exchanges ctx-pack imports.
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctx-tools/ctx/lib/canon"
	"github.com/ctx-tools/ctx/lib/cli"
	"github.com/ctx-tools/ctx/lib/manifest"
	"github.com/ctx-tools/ctx/lib/ref"
	"github.com/ctx-tools/ctx/lib/serve"
)

type serveCmd struct {
	cli.Globals
	Packs     []string `arg:"" optional:"" help:"Packs to answer from (default: references read from stdin)." placeholder:"PACK"`
	Listen    string   `help:"Address to listen on; a non-loopback address is served with a warning." default:"127.0.0.1:0" placeholder:"ADDR"`
	Workspace string   `help:"The directory the agent runs in: tool calls' relative paths are answered under it, and it reads as the session's recorded working directory when requests are matched." placeholder:"DIR"`
	Upstream  string   `help:"Forward what the packs cannot answer to this endpoint (http or https base URL), with the key from ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY." placeholder:"URL"`
	From      int      `help:"Answer from the packs only before step N; forward every later turn to --upstream (a fork onto another model from step N)." default:"-1" placeholder:"N"`
	Model     string   `help:"The model to ask --upstream for, in place of the request's." placeholder:"MODEL"`
	Record    string   `help:"Append every exchange forwarded to --upstream to FILE as JSON Lines ({api, request, response, status, started, duration_ms}; never a key or an authorization header), for ctx-pack --from anthropic|openai-responses|openai-chat." placeholder:"FILE"`
}

func (c *serveCmd) Description() string {
	return `Answer model API requests from packs: Anthropic Messages (/v1/messages), OpenAI Responses
(/v1/responses), OpenAI Chat Completions (/v1/chat/completions) and Gemini (:generateContent,
:streamGenerateContent), streamed or not. Each request is matched to a recorded turn by what its
conversation holds (prompts, earlier answers, tool results), not by count; a request the packs
cannot answer is an error response the agent shows (and a "miss" line), or is forwarded to
--upstream. Stops cleanly on SIGINT and SIGTERM.`
}

func (c *serveCmd) Run(env *cli.Env) error {
	var up *url.URL
	if c.Upstream != "" {
		u, err := url.Parse(c.Upstream)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return cli.Errorf(cli.ExitUsage, "--upstream %q: expected an http or https URL", c.Upstream)
		}
		up = u
	}
	switch {
	case c.Record != "" && up == nil:
		return cli.Errorf(cli.ExitUsage, "--record needs --upstream: it keeps what the upstream answers")
	case c.From >= 0 && up == nil:
		return cli.Errorf(cli.ExitUsage, "--from needs --upstream: the turns from step %d on are the upstream's", c.From)
	case c.Model != "" && up == nil:
		return cli.Errorf(cli.ExitUsage, "--model needs --upstream")
	}
	workspace := c.Workspace
	if workspace != "" {
		abs, err := filepath.Abs(workspace)
		if err != nil {
			return cli.WithCode(cli.ExitUsage, err)
		}
		workspace = abs
	}
	rec, err := c.load(env, c.Record != "")
	if err != nil {
		return err
	}
	var record func(serve.Exchange)
	var recordErr error
	var recMu sync.Mutex
	if c.Record != "" {
		f, err := os.OpenFile(c.Record, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("opening the record file: %w", err)
		}
		defer f.Close()
		record = func(x serve.Exchange) {
			line, err := exchangeLine(x)
			recMu.Lock()
			defer recMu.Unlock()
			if err == nil {
				_, err = f.Write(line)
			}
			if err != nil && recordErr == nil {
				recordErr = err
				env.Warnf("recording an exchange: %v", err)
			}
		}
	}
	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return cli.WithCode(cli.ExitError, fmt.Errorf("listening on %s: %w", c.Listen, err))
	}
	addr := ln.Addr().(*net.TCPAddr)
	if !addr.IP.IsLoopback() {
		env.Warnf("listening on %s, which is not a loopback address: anyone who can reach it can read the packs' content", addr)
	}
	var outMu sync.Mutex
	emit := func(v any) {
		outMu.Lock()
		defer outMu.Unlock()
		if err := env.Result(v); err != nil {
			env.Warnf("writing a report: %v", err)
		}
	}
	var from *int
	if c.From >= 0 {
		from = &c.From
	}
	srv := &http.Server{Handler: serve.New(rec, serve.Options{Workspace: workspace, Upstream: up, From: from, Model: c.Model,
		Record: record, Event: func(e serve.Event) { emit(e) }}),
		ReadHeaderTimeout: 30 * time.Second, MaxHeaderBytes: 1 << 20}
	base := "http://" + addr.String()
	packs := make([]string, len(rec.Packs))
	for i, p := range rec.Packs {
		packs[i] = p.Hash.String()
	}
	emit(map[string]any{"listen": addr.String(), "pid": os.Getpid(), "packs": packs,
		"base_urls": map[string]string{"anthropic": base, "openai": base + "/v1", "gemini": base}})

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(stop)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serving: %w", err)
	case <-stop:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		srv.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving: %w", err)
	}
	recMu.Lock()
	defer recMu.Unlock()
	if recordErr != nil {
		return cli.WithCode(cli.ExitError, fmt.Errorf("recording to %s: %w", c.Record, recordErr))
	}
	return nil
}

// load reads the packs to serve; a recording proxy may serve none.
func (c *serveCmd) load(env *cli.Env, proxy bool) (*serve.Recording, error) {
	if proxy && len(c.Packs) == 0 && env.StdinIsTerminal() {
		return &serve.Recording{}, nil
	}
	items, err := env.Refs(c.Packs)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		if proxy {
			return &serve.Recording{}, nil
		}
		return nil, cli.Errorf(cli.ExitUsage, "no pack to serve: name one, or pipe references on stdin")
	}
	s, err := env.Store()
	if err != nil {
		return nil, err
	}
	var ms []*manifest.Manifest
	for _, it := range items {
		m, err := ref.Load(s, it.Ref)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return serve.Load(s, ms)
}

// exchangeLine is one recorded exchange as a JSON line the exchange
// importer reads: the bodies as JSON where they are JSON.
func exchangeLine(x serve.Exchange) ([]byte, error) {
	body := func(b []byte) any {
		if v := jsontext.Value(b); v.IsValid() {
			return v
		}
		return string(b)
	}
	line, err := canon.Marshal(map[string]any{"api": x.API, "request": body(x.Request), "response": body(x.Response),
		"status": x.Status, "started": x.Started.UTC().Format(time.RFC3339Nano), "duration_ms": x.Duration.Milliseconds()})
	if err != nil {
		return nil, err
	}
	return append(line, '\n'), nil
}

func main() {
	os.Exit(cli.Run("ctx-serve", &serveCmd{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
