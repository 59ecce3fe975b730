package childproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ErrExited is WaitReady's error when the server is gone before it answered.
var ErrExited = errors.New("the server exited before it was ready")

// readyPoll is the pause between two requests of WaitReady.
const readyPoll = 50 * time.Millisecond

// WaitReady polls GET /readyz on a server's internal address (host:port) with client until it
// answers 200, exited is closed (the server is gone: ErrExited), ctx ends or timeout passes.
// The timeout only stops a wait for a server that never gets ready; the caller picks one a busy
// machine cannot reach.
func WaitReady(ctx context.Context, client *http.Client, internalAddr string, exited <-chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+internalAddr+"/readyz", nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-exited:
			return ErrExited
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(readyPoll):
		}
	}
	return fmt.Errorf("the server was not ready after %s", timeout)
}
