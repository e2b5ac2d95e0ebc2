package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Timeouts bound every network operation of a push or pull, so that a
// registry that accepts a connection and never answers, or answers a byte
// at a time, cannot hang a command. The kong tags make it a flag group of
// ctx-push and ctx-pull; each is also read from the environment.
type Timeouts struct {
	// Connect bounds setting up a connection: TCP connect and TLS
	// handshake.
	Connect time.Duration `name:"connect-timeout" env:"CTX_CONNECT_TIMEOUT" default:"30s" help:"Give up connecting to a registry (TCP and TLS) after this long." placeholder:"DURATION"`
	// Response bounds the wait for a response's headers once the request
	// is sent.
	Response time.Duration `name:"response-timeout" env:"CTX_RESPONSE_TIMEOUT" default:"60s" help:"Give up on a registry that has not begun to answer a request this long after it was sent." placeholder:"DURATION"`
	// Idle bounds a stalled transfer: a connection on which fewer than
	// StallBytes move in this long is cut.
	Idle time.Duration `name:"idle-timeout" env:"CTX_IDLE_TIMEOUT" default:"60s" help:"Cut a transfer during which less than 16 KiB moved in this long: a stalled or dripping registry." placeholder:"DURATION"`
}

// DefaultTimeouts are the timeouts of a Client whose Options give none.
var DefaultTimeouts = Timeouts{Connect: 30 * time.Second, Response: 60 * time.Second, Idle: 60 * time.Second}

// StallBytes is how much must move on a connection in every idle timeout
// for a transfer to go on.
const StallBytes = 16 << 10

// Validate refuses a timeout that is not positive: there is no "never".
func (t Timeouts) Validate() error {
	for _, f := range []struct {
		flag string
		d    time.Duration
	}{{"--connect-timeout", t.Connect}, {"--response-timeout", t.Response}, {"--idle-timeout", t.Idle}} {
		if f.d <= 0 {
			return &ArgError{fmt.Sprintf("%s must be a positive duration (got %s)", f.flag, f.d)}
		}
	}
	return nil
}

func (t Timeouts) orDefault() Timeouts {
	if t.Connect <= 0 {
		t.Connect = DefaultTimeouts.Connect
	}
	if t.Response <= 0 {
		t.Response = DefaultTimeouts.Response
	}
	if t.Idle <= 0 {
		t.Idle = DefaultTimeouts.Idle
	}
	return t
}

// ErrStalled reports a registry that stopped sending or receiving.
var ErrStalled = errors.New("the registry stalled")

// stallError is a connection cut for moving too little: a net.Error, so
// that net/http treats it as the timeout it is.
type stallError struct {
	host   string
	window time.Duration
}

func (e *stallError) Error() string {
	return fmt.Sprintf("%s: %s: less than %d bytes moved in %s or more (--idle-timeout, CTX_IDLE_TIMEOUT)", ErrStalled, e.host, StallBytes, e.window)
}
func (e *stallError) Unwrap() error   { return ErrStalled }
func (e *stallError) Timeout() bool   { return true }
func (e *stallError) Temporary() bool { return false }

// newTransport returns the HTTP transport of a registry client: the
// default one with the timeouts t, on connections that are cut when
// they stall (meteredConn).
func newTransport(t Timeouts, jobs int) *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	dialer := &net.Dialer{Timeout: t.Connect, KeepAlive: 30 * time.Second}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return newMeteredConn(c, addr, t), nil
	}
	tr.TLSHandshakeTimeout = t.Connect
	tr.ResponseHeaderTimeout = t.Response
	// Pooled connections are closed before their idle deadline cuts them,
	// so that a request never starts on a connection about to be cut.
	tr.IdleConnTimeout = t.Idle / 2
	tr.MaxIdleConnsPerHost = jobs + 2
	return tr
}

// meteredConn cuts a connection on which too little moves. A write (a
// request, or part of an upload) grants the connection the longer of the
// response and idle timeouts for the answer to begin; once it has begun,
// every StallBytes read grant it the idle timeout again. A registry that
// answers a byte every few seconds therefore runs out of time as surely
// as one that never answers.
type meteredConn struct {
	net.Conn
	host   string
	t      Timeouts
	window time.Duration

	mu       sync.Mutex
	awaiting bool  // written since the last read: the answer has not begun
	moved    int64 // read since the last extension
}

func newMeteredConn(c net.Conn, host string, t Timeouts) *meteredConn {
	m := &meteredConn{Conn: c, host: host, t: t, window: max(t.Idle, t.Response)}
	c.SetDeadline(time.Now().Add(m.window))
	return m
}

func (c *meteredConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.mu.Lock()
		c.moved += int64(n)
		if c.awaiting || c.moved >= StallBytes {
			c.awaiting, c.moved = false, 0
			c.Conn.SetDeadline(time.Now().Add(c.t.Idle))
		}
		c.mu.Unlock()
	}
	return n, c.explain(err)
}

func (c *meteredConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.awaiting, c.moved = true, 0
	c.Conn.SetDeadline(time.Now().Add(c.window))
	c.mu.Unlock()
	n, err := c.Conn.Write(b)
	return n, c.explain(err)
}

func (c *meteredConn) explain(err error) error {
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		return &stallError{host: c.host, window: c.t.Idle}
	}
	return err
}

// retryPredicate is oras's default predicate (429, 408, 5xx, resets),
// except that a timeout is not retried: a registry that stalled once
// gets no second wait.
func retryPredicate(base func(*http.Response, error) (bool, error)) func(*http.Response, error) (bool, error) {
	return func(resp *http.Response, err error) (bool, error) {
		var ne net.Error
		if err != nil && errors.As(err, &ne) && ne.Timeout() {
			return false, err
		}
		return base(resp, err)
	}
}

// redirectedError reports a request the registry redirected (as it does
// blob downloads, to a storage service) whose target failed: that is not
// the registry saying it lacks the blob.
type redirectedError struct {
	host   string
	status string
}

func (e *redirectedError) Error() string {
	return fmt.Sprintf("the registry redirected the request to %s, which answered %s", e.host, e.status)
}

// unansweredError is net/http's response-header timeout, said in ctx's
// words.
type unansweredError struct {
	host  string
	after time.Duration
}

func (e *unansweredError) Error() string {
	return fmt.Sprintf("%s did not answer within %s (--response-timeout, CTX_RESPONSE_TIMEOUT)", e.host, e.after)
}
func (e *unansweredError) Timeout() bool   { return true }
func (e *unansweredError) Temporary() bool { return false }

// checked is the transport under the retries: it turns a redirect
// target's 404 into a redirectedError (other statuses of a redirect
// target pass as they are: a 5xx is retried, a 401 or 403 is the
// registry's storage refusing) and net/http's response-header timeout
// into an unansweredError.
type checked struct {
	base     http.RoundTripper
	response time.Duration
}

func (t checked) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	var ne net.Error
	if err != nil && errors.As(err, &ne) && ne.Timeout() && strings.Contains(err.Error(), "timeout awaiting response headers") {
		return nil, &unansweredError{host: req.URL.Host, after: t.response}
	}
	if err == nil && req.Response != nil && resp.StatusCode == http.StatusNotFound {
		resp.Body.Close()
		return nil, &redirectedError{host: req.URL.Host, status: resp.Status}
	}
	return resp, err
}

// unwrapRedirected returns a redirectedError alone, without the
// url.Error around it that quotes the target's URL (which may carry
// signed credentials in its query).
func unwrapRedirected(err error) error {
	var re *redirectedError
	if errors.As(err, &re) {
		return re
	}
	return err
}
