package childproc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// readyServer answers /readyz 503 the first notReady times, then 200; every other path 404.
func readyServer(t *testing.T, notReady int64) (addr string, asked *atomic.Int64) {
	t.Helper()
	asked = &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		if asked.Add(1) <= notReady {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), asked
}

func TestWaitReady(t *testing.T) {
	addr, asked := readyServer(t, 3)
	if err := WaitReady(t.Context(), http.DefaultClient, addr, nil, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if n := asked.Load(); n != 4 {
		t.Fatalf("/readyz asked %d times, want 4 (three 503s, then 200)", n)
	}
}

func TestWaitReadyServerGone(t *testing.T) {
	addr, _ := readyServer(t, 1<<62)
	exited := make(chan struct{})
	close(exited)
	if err := WaitReady(t.Context(), http.DefaultClient, addr, exited, 2*time.Minute); !errors.Is(err, ErrExited) {
		t.Fatalf("err = %v, want ErrExited", err)
	}
}

func TestWaitReadyContextEnds(t *testing.T) {
	addr, _ := readyServer(t, 1<<62)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := WaitReady(ctx, http.DefaultClient, addr, nil, 2*time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestWaitReadyTimeout(t *testing.T) {
	addr, asked := readyServer(t, 0)
	if err := WaitReady(t.Context(), http.DefaultClient, addr, nil, 0); err == nil || !strings.Contains(err.Error(), "not ready") {
		t.Fatalf("err = %v, want not ready", err)
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("/readyz asked %d times after the time was up", n)
	}
}
