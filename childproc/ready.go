package childproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// readyPoll is the pause between two requests of WaitReady.
const readyPoll = 50 * time.Millisecond

// WaitReady polls GET /readyz on a server's internal address (host:port) with client until it
// answers 200, exited is closed (the server is gone: an error that is ErrExited), ctx ends or
// timeout passes. The timeout only stops a wait for a server that never gets ready; the caller
// picks one a busy machine cannot reach.
func WaitReady(ctx context.Context, client *http.Client, internalAddr string, exited <-chan struct{}, timeout time.Duration) error {
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("the server was not ready after %s", timeout))
	defer cancel()
	// One request for every try: it has no body, and each answer's body is closed before the
	// next try.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+internalAddr+"/readyz", nil)
	if err != nil {
		return err
	}
	err = Poll(ctx, readyPoll, exited, func() bool {
		resp, err := client.Do(req)
		if err != nil {
			return false
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if errors.Is(err, ErrExited) {
		return fmt.Errorf("%w before it was ready", err)
	}
	return err
}
