package systemtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/proctorhq/proctor/bench/flow"
	"github.com/proctorhq/proctor/endpoint"
)

// Shutdown bounds: the grace the server is configured with, and the margin its exit may take
// beyond it (process exit, a loaded machine). The grace is long so that a busy machine's slow
// checks never run into it: the server exits as soon as the held requests are done, so a long
// grace costs nothing when all goes well.
const (
	shutdownGrace  = 2 * time.Minute
	shutdownMargin = time.Minute
	// backgroundClients send ordinary requests while the server shuts down.
	backgroundClients = 6
)

// TestGracefulShutdown sends SIGTERM while requests are in flight. The slow requests are held
// open by the test itself: each sends its headers with "Expect: 100-continue", so the server's
// "100 Continue" proves the handler has accepted the request and is reading its body, then
// sends half the body and the rest only after the signal.
func TestGracefulShutdown(t *testing.T) {
	needPostgres(t)
	ctx := t.Context()
	public := reserveAddr(t)
	d := newDeployment(t, public, nil)
	d.grace = shutdownGrace.String()
	// The held requests are read and answered after the checks below, which may take up to
	// half the grace on a busy machine: the server's read and write timeouts (15s and 30s by
	// default, counted from the request's arrival) must not cut them off first.
	d.readWrite = (shutdownGrace + shutdownMargin).String()
	R, s, proc := d.serveAlone(false)

	c := newBrowser(s).at(R)
	if err := c.login(ctx); err != nil {
		t.Fatal(err)
	}
	var grants []flow.Tokens
	for range 3 {
		tr, err := c.Grant(ctx)
		must(t, err)
		grants = append(grants, tr)
	}
	p := flow.NewPKCE()
	code, err := c.Authorize(ctx, p)
	must(t, err)
	gql, _ := json.Marshal(map[string]string{"query": "{ viewer { id } }"})
	form := "application/x-www-form-urlencoded"

	slow := []*slowRequest{
		startSlow(t, R.public, "refresh", http.MethodPost, endpoint.Token, http.Header{"Content-Type": {form}},
			[]byte(c.RefreshForm(s.clientID, grants[0].RefreshToken).Encode()), checkTokens200),
		startSlow(t, R.public, "refresh", http.MethodPost, endpoint.Token, http.Header{"Content-Type": {form}},
			[]byte(c.RefreshForm(s.clientID, grants[1].RefreshToken).Encode()), checkTokens200),
		startSlow(t, R.public, "code exchange", http.MethodPost, endpoint.Token, http.Header{"Content-Type": {form}},
			[]byte(c.ExchangeForm(s.clientID, code, p).Encode()), checkTokens200),
		startSlow(t, R.public, "member api", http.MethodPost, endpoint.MemberGraphQL, http.Header{
			"Content-Type": {"application/json"}, "Authorization": {"Bearer " + grants[2].AccessToken},
		}, gql, func(r flow.Response) error {
			if r.Status != http.StatusOK || !bytes.Contains(r.Body, []byte(`"viewer"`)) {
				return fmt.Errorf("%s, want 200 with the viewer", r)
			}
			return nil
		}),
	}

	// Ordinary requests, each on a new connection, keep arriving until the listener refuses
	// them. Every answer that arrives must be the normal one.
	bg := startBackground(c, grants[2].AccessToken)

	term := time.Now()
	proc.signal(t, syscall.SIGTERM)
	bg.term.Store(true)

	t.Run("listener closed to new connections", func(t *testing.T) {
		var lastErr error
		refused, took := poll(shutdownGrace, 10*time.Millisecond, func() bool {
			conn, err := net.DialTimeout("tcp", R.public, time.Second)
			if err == nil {
				conn.Close()
				return false
			}
			lastErr = err
			return errors.Is(err, syscall.ECONNREFUSED)
		})
		if !refused {
			t.Fatalf("new connections still accepted %s after SIGTERM (last dial error: %v)", took, lastErr)
		}
		if !proc.Running() {
			t.Fatal("the process exited with requests still in flight")
		}
		t.Logf("new connections refused %s after SIGTERM, with %d requests in flight", took.Round(time.Millisecond), len(slow))
	})

	t.Run("readyz reports not ready while draining", func(t *testing.T) {
		internal := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		var last string
		answered, _ := poll(shutdownGrace, 10*time.Millisecond, func() bool {
			resp, err := internal.Get("http://" + R.internal + "/readyz")
			if err != nil {
				last = err.Error()
				return errors.Is(err, syscall.ECONNREFUSED)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			last = fmt.Sprintf("status %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
			return resp.StatusCode != http.StatusOK
		})
		switch {
		case !answered:
			t.Errorf("/readyz still answers ready while draining: %s", last)
		case strings.HasPrefix(last, "status 503"):
			t.Logf("/readyz while draining: %s", last)
		default:
			t.Logf("/readyz not observable while draining: %s", last)
		}
		if !proc.Running() {
			t.Fatal("the process exited with requests still in flight")
		}
	})

	t.Run("accepted requests complete normally", func(t *testing.T) {
		if since := time.Since(term); since > shutdownGrace/2 {
			t.Fatalf("the checks above took %s, too close to the grace of %s for the held requests to finish", since, shutdownGrace)
		}
		var wg sync.WaitGroup
		for _, r := range slow {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := r.finish()
				if err != nil {
					t.Errorf("%s accepted before SIGTERM: %v", r.name, err)
					return
				}
				if err := r.check(resp); err != nil {
					t.Errorf("%s accepted before SIGTERM: %v", r.name, err)
				}
			}()
		}
		wg.Wait()
	})

	bg.wait()
	t.Run("ordinary requests during shutdown", func(t *testing.T) {
		bg.mu.Lock()
		defer bg.mu.Unlock()
		for _, p := range bg.problems {
			t.Error(p)
		}
		t.Logf("background requests: %d answered 200, %d after SIGTERM; %d clients stopped by a refused or reset connection",
			bg.ok.Load(), bg.okAfterTerm.Load(), bg.stopped.Load())
	})

	t.Run("exit", func(t *testing.T) {
		state, ok := proc.wait(shutdownGrace + shutdownMargin - time.Since(term))
		if !ok {
			t.Fatalf("still running %s after SIGTERM (grace %s + margin %s)", time.Since(term).Round(time.Millisecond), shutdownGrace, shutdownMargin)
		}
		t.Logf("exited %s after SIGTERM: %v", time.Since(term).Round(time.Millisecond), state)
		if code := state.ExitCode(); code != 0 {
			t.Errorf("exit status %d, want 0 (%v)", code, state)
		}
	})
}

func checkTokens200(r flow.Response) error {
	_, err := flow.ParseTokens("token request", r)
	return err
}

// slowRequest is an HTTP/1.1 request on a connection of its own whose body the test holds
// back.
type slowRequest struct {
	name  string
	conn  net.Conn
	br    *bufio.Reader
	req   *http.Request
	rest  []byte
	check func(flow.Response) error
}

// startSlow sends the request line and headers with "Expect: 100-continue", waits for the
// server's "100 Continue" (the handler is reading the body), and sends the first half of the
// body.
func startSlow(t *testing.T, addr, name, method, path string, header http.Header, body []byte, check func(flow.Response) error) *slowRequest {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	must(t, err)
	t.Cleanup(func() { conn.Close() })
	var head strings.Builder
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\nExpect: 100-continue\r\nConnection: close\r\n", method, path, addr, len(body))
	for k, vs := range header {
		for _, v := range vs {
			fmt.Fprintf(&head, "%s: %s\r\n", k, v)
		}
	}
	head.WriteString("\r\n")
	must(t, conn.SetDeadline(time.Now().Add(requestTimeout)))
	if _, err := io.WriteString(conn, head.String()); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	req, _ := http.NewRequest(method, "http://"+addr+path, nil)
	br := bufio.NewReader(conn)
	cont, err := http.ReadResponse(br, req)
	if err != nil {
		t.Fatalf("%s: waiting for 100 Continue: %v", name, err)
	}
	if cont.StatusCode != http.StatusContinue {
		b, _ := io.ReadAll(cont.Body)
		t.Fatalf("%s: status %d before the body was sent: %s", name, cont.StatusCode, b)
	}
	half := len(body) / 2
	if _, err := conn.Write(body[:half]); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &slowRequest{name: name, conn: conn, br: br, req: req, rest: body[half:], check: check}
}

// finish sends the rest of the body and reads the answer, within requestTimeout of its call:
// the deadline startSlow set bounded the wait for "100 Continue" and may have passed while the
// request was held.
func (r *slowRequest) finish() (flow.Response, error) {
	if err := r.conn.SetDeadline(time.Now().Add(requestTimeout)); err != nil {
		return flow.Response{}, err
	}
	if _, err := r.conn.Write(r.rest); err != nil {
		return flow.Response{}, fmt.Errorf("sending the rest of the body: %w", err)
	}
	resp, err := http.ReadResponse(r.br, r.req)
	if err != nil {
		return flow.Response{}, fmt.Errorf("reading the answer: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, flow.DefaultMaxBody))
	if err != nil {
		return flow.Response{}, fmt.Errorf("reading the answer: %w", err)
	}
	return flow.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

// background is ordinary load during the shutdown.
type background struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// term is set once SIGTERM was sent.
	term                     atomic.Bool
	ok, okAfterTerm, stopped atomic.Int64
	mu                       sync.Mutex
	problems                 []string
}

// startBackground starts backgroundClients loops of GET userinfo, each on new connections,
// and returns once each has had one answer. A loop ends at its first transport error (the
// listener is closed) or after shutdownGrace.
func startBackground(c *at, access string) *background {
	bg := &background{}
	bg.ctx, bg.cancel = context.WithTimeout(context.Background(), shutdownGrace)
	client := &http.Client{Timeout: requestTimeout, Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext:       c.r.transport.DialContext,
	}}
	var first sync.WaitGroup
	for range backgroundClients {
		bg.wg.Add(1)
		first.Add(1)
		go func() {
			defer bg.wg.Done()
			answered := false
			defer func() {
				if !answered {
					first.Done()
				}
			}()
			for n := 0; n < 10000 && bg.ctx.Err() == nil; n++ {
				req, _ := http.NewRequestWithContext(bg.ctx, http.MethodGet, c.URL(endpoint.Userinfo), nil)
				req.Header.Set("Authorization", "Bearer "+access)
				resp, err := client.Do(req)
				if err != nil {
					bg.stopped.Add(1)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				switch {
				case resp.StatusCode != http.StatusOK:
					bg.mu.Lock()
					bg.problems = append(bg.problems, fmt.Sprintf("GET %s during shutdown: status %d, want 200", endpoint.Userinfo, resp.StatusCode))
					bg.mu.Unlock()
				case bg.term.Load():
					bg.ok.Add(1)
					bg.okAfterTerm.Add(1)
				default:
					bg.ok.Add(1)
				}
				if !answered {
					answered = true
					first.Done()
				}
			}
		}()
	}
	first.Wait()
	return bg
}

// wait waits for every loop to end.
func (bg *background) wait() {
	bg.wg.Wait()
	bg.cancel()
}
