package securitytest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// Limits of the environments below: small, so that tests reach them quickly.
const (
	testReadHeaderTimeout = 300 * time.Millisecond
	testMaxBodyBytes      = 16 << 10
)

// withLimits sets the limits above in the server file (the server applies them to the
// http.Server that Serve runs, which servertest uses).
func withLimits(o *servertest.Options) {
	prev := o.Configure
	o.Configure = func(s *config.Server) {
		if prev != nil {
			prev(s)
		}
		s.HTTP.ReadHeaderTimeout = testReadHeaderTimeout
		s.HTTP.MaxBodyBytes = testMaxBodyBytes
	}
}

// TestSlowHeadersAreCutOff: a client that sends its request headers one byte at a time is
// disconnected once http.read_header_timeout has passed, long before it has sent them all,
// and is never answered with a success.
func TestSlowHeadersAreCutOff(t *testing.T) {
	e := newEnv(t, "sqlite", withLimits)
	start := time.Now() // before the connection: the server's deadline starts when it accepts
	conn, err := net.Dial("tcp", e.PublicAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "GET " + login.LoginPath + " HTTP/1.1\r\nHost: " + e.A.Host + "\r\n" +
		"X-Slow: " + strings.Repeat("s", 200) + "\r\n\r\n"

	// The reader ends when the server closes the connection (or answers).
	answered := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(conn)
		answered <- string(b)
	}()
	tick := time.NewTicker(25 * time.Millisecond) // 400 ticks for the whole head: 10 s
	defer tick.Stop()
	sent := 0
	var reply string
	cutOff := false
loop:
	for sent < len(head) {
		select {
		case reply = <-answered:
			cutOff = true
			break loop
		case <-tick.C:
			if _, err := conn.Write([]byte{head[sent]}); err != nil {
				reply, cutOff = <-answered, true
				break loop
			}
			sent++
		}
	}
	elapsed := time.Since(start)
	if !cutOff {
		t.Fatalf("the server waited for all %d bytes of a request head sent over %v (read_header_timeout %v)", sent, elapsed, testReadHeaderTimeout)
	}
	if elapsed < testReadHeaderTimeout {
		t.Errorf("cut off after %v, before read_header_timeout %v", elapsed, testReadHeaderTimeout)
	}
	if strings.HasPrefix(reply, "HTTP/1.1 2") || strings.HasPrefix(reply, "HTTP/1.1 3") {
		t.Errorf("a request whose head never arrived was answered: %.100q", reply)
	}
	t.Logf("cut off after %d of %d bytes, %v; answer %.40q", sent, len(head), elapsed.Round(time.Millisecond), reply)
}

// oversized is one endpoint an oversized body is sent to.
type oversized struct {
	name, path, contentType, token string
}

// How an oversized body is sent.
const (
	// declared: a Content-Length of 64×max_body_bytes, and only 1 KiB of the body.
	declared = "declared length"
	// streamed: chunked, without a length, chunk after chunk until the answer comes.
	streamed = "chunked"
	// heldBack: chunked, max_body_bytes and 4 KiB more, then nothing (no last chunk).
	heldBack = "chunked, end held back"
)

// answerWithin bounds the wait for an answer to a body whose end is held back: a server that
// refuses the body answers at once; one that reads on waits for the rest until its
// read_timeout, which is a minute in these tests. The bound is a liveness guard, not a measure
// of speed: half the read_timeout, so that a busy machine's slow answer is not taken for a
// server waiting for the body.
const answerWithin = 30 * time.Second

// TestOversizedBodiesAreRefused: a body larger than http.max_body_bytes to the token endpoint,
// the Member API, the MCP endpoint, the operator REST API, registration and sign-in is refused
// with 413 (docs/configuration.md) without being read to its end: declared with a Content-Length
// over the limit (the rest of the body is never sent), sent chunked without a length, and sent
// chunked with its end held back, when the answer must come without the server waiting for
// the rest.
func TestOversizedBodiesAreRefused(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, withLimits, func(o *servertest.Options) {
			prev := o.Configure
			o.Configure = func(s *config.Server) { prev(s); s.HTTP.ReadTimeout = time.Minute }
		})
		a := e.A
		member := e.Tokens(a, a.Student.Email, scope.OpenID, scope.AccountRead)
		op := e.Tokens(a, a.Owner.Email, scope.OpenID, "courses:write")
		endpoints := []oversized{
			{"token endpoint", endpoint.Token, "application/x-www-form-urlencoded", ""},
			{"Member API", endpoint.MemberGraphQL, "application/json", member.AccessToken},
			{"MCP", endpoint.MCP, "application/json", member.AccessToken},
			{"operator REST API", "/api/v1/courses", "application/json", op.AccessToken},
			{"registration", endpoint.Register, "application/json", ""},
			{"sign-in", login.LoginPath, "application/x-www-form-urlencoded", ""},
		}
		// Every request is sent at once, so that the liveness guard is waited for once, not once
		// per endpoint, should the server wait; the answers are judged one by one afterwards.
		type result struct {
			status, sent int
			err          error
		}
		results := map[string]*result{}
		var wg sync.WaitGroup
		for _, ep := range endpoints {
			for _, how := range []string{declared, streamed, heldBack} {
				r := &result{}
				results[ep.name+", "+how] = r
				wg.Go(func() { r.status, r.sent, r.err = sendOversized(e, a, ep, how) })
			}
		}
		wg.Wait()
		for _, ep := range endpoints {
			for _, how := range []string{declared, streamed, heldBack} {
				key := ep.name + ", " + how
				r := results[key]
				t.Run(key, func(t *testing.T) {
					var problem string
					switch {
					case r.err != nil:
						problem = fmt.Sprintf("POST %s, %s body over max_body_bytes (%d): no answer after %d body bytes: %v",
							ep.path, how, testMaxBodyBytes, r.sent, r.err)
					case r.status != http.StatusRequestEntityTooLarge:
						problem = fmt.Sprintf("POST %s, %s body over max_body_bytes (%d): %d after %d body bytes, want 413",
							ep.path, how, testMaxBodyBytes, r.status, r.sent)
					default:
						return
					}
					t.Error(problem)
				})
			}
		}
	})
}

// sendOversized sends a POST with an oversized body to school s over a raw connection, the way
// how says, and returns the status of the answer and how many body bytes were sent before it.
func sendOversized(e *servertest.Env, s *servertest.School, ep oversized, how string) (int, int, error) {
	conn, err := net.Dial("tcp", e.PublicAddr)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close()
	guard := 30 * time.Second // the answer comes at once; this only keeps a broken server from hanging the test
	if how == heldBack {
		guard = answerWithin
	}
	_ = conn.SetReadDeadline(time.Now().Add(guard))
	var head strings.Builder
	fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\n", ep.path, s.Host, ep.contentType)
	head.WriteString("Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n")
	if ep.token != "" {
		fmt.Fprintf(&head, "Authorization: Bearer %s\r\n", ep.token)
	}
	if how == declared {
		fmt.Fprintf(&head, "Content-Length: %d\r\n\r\n", 64*testMaxBodyBytes)
	} else {
		head.WriteString("Transfer-Encoding: chunked\r\n\r\n")
	}
	if _, err := io.WriteString(conn, head.String()); err != nil {
		return 0, 0, err
	}
	chunk := strings.Repeat("a", 1024)
	var sent atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			switch {
			case how == declared && sent.Load() >= 1024,
				how == heldBack && sent.Load() >= testMaxBodyBytes+4096,
				sent.Load() >= 64<<20:
				return
			}
			select {
			case <-stop:
				return
			default:
			}
			var err error
			if how == declared {
				_, err = io.WriteString(conn, chunk)
			} else {
				_, err = fmt.Fprintf(conn, "%x\r\n%s\r\n", len(chunk), chunk)
			}
			if err != nil {
				return
			}
			sent.Add(int64(len(chunk)))
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	close(stop)
	_ = conn.SetWriteDeadline(time.Now()) // unblock a writer stuck on a full socket
	<-done
	if err != nil {
		return 0, int(sent.Load()), err
	}
	resp.Body.Close()
	return resp.StatusCode, int(sent.Load()), nil
}
