package server

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"
)

// While the process waits for its database the internal listener says alive but not ready;
// after the handover the same socket, never closed, serves the real handler.
func TestStartingHandsTheInternalListenerOver(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	// One client with keep-alive: its idle connection to the start-up server is closed by the
	// handover, and the next request opens one that the real server answers.
	c := &http.Client{}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		var body struct{ Status string }
		b, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(b, &body)
		return resp.StatusCode, body.Status
	}

	st, err := ServeStarting(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path   string
		code   int
		status string
	}{
		{"/healthz", http.StatusOK, "ok"},
		{"/readyz", http.StatusServiceUnavailable, "starting"},
		{"/metrics", http.StatusNotFound, ""},
	} {
		if code, status := get(tc.path); code != tc.code || status != tc.status {
			t.Errorf("starting: GET %s = %d %q, want %d %q", tc.path, code, status, tc.code, tc.status)
		}
	}

	handed, err := st.Handover(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if handed.Addr().String() != l.Addr().String() {
		t.Fatalf("handed over %s, want %s", handed.Addr(), l.Addr())
	}
	ready := http.NewServeMux()
	ready.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, `{"status":"ready"}`) })
	srv := &http.Server{Handler: ready}
	go func() { _ = srv.Serve(handed) }()
	t.Cleanup(func() { _ = srv.Close() })
	if code, status := get("/readyz"); code != http.StatusOK || status != "ready" {
		t.Errorf("after the handover: GET /readyz = %d %q, want the real handler's 200", code, status)
	}
}

// A start-up that fails closes the listener.
func TestStartingCloseReleasesTheListener(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	st, err := ServeStarting(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := net.Listen("tcp", l.Addr().String())
	if err != nil {
		t.Fatalf("the port is still held: %v", err)
	}
	again.Close()
}
