package cimd

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"time"

	"github.com/proctorhq/proctor/netguard"
)

// MaxDocumentSize is the most of a document that is read: the draft's section 8.7 recommends
// 5 kilobytes, and a document that does not end within it is an error.
const MaxDocumentSize = 5 << 10

// Default timeouts of a fetch: a document is fetched while a member waits on the
// authorization page, and a slow host must not hold the request (or a connection slot) long.
const (
	DefaultConnectTimeout = 2 * time.Second
	DefaultTimeout        = 5 * time.Second
)

// fetcher gets documents over HTTPS. It has two clients, one per address policy, so that a
// pooled connection opened under the development policy (loopback and private addresses
// allowed) can never serve a fetch made for a school without it.
type fetcher struct {
	strict, permissive *http.Client
}

func newFetcher(o Options) *fetcher {
	return &fetcher{strict: newHTTPClient(o, false), permissive: newHTTPClient(o, true)}
}

func newHTTPClient(o Options, allowPrivate bool) *http.Client {
	tr := netguard.NewTransport(netguard.TransportOptions{
		Resolver: o.Resolver, AllowPrivate: allowPrivate, Dial: o.dial, RootCAs: o.RootCAs,
		ConnectTimeout: o.ConnectTimeout, ResponseTimeout: o.Timeout,
		MaxIdleConns: 32, MaxIdleConnsPerHost: 2,
	})
	return &http.Client{
		Transport: tr,
		Timeout:   o.Timeout,
		// Draft section 5: redirects MUST NOT be followed automatically; a 3xx is a failure.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// response is a fetched body with the headers that say how long it may be reused.
type response struct {
	body   []byte
	header http.Header
}

// fetch GETs the document at rawURL (already checked by ParseClientID).
func (f *fetcher) fetch(ctx context.Context, rawURL string, allowPrivate bool) (response, error) {
	client := f.strict
	if allowPrivate {
		client = f.permissive
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return response{}, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "Proctor (Client ID Metadata Document fetcher)")
	resp, err := client.Do(req)
	if err != nil {
		return response{}, fmt.Errorf("%w: %w", ErrFetch, err)
	}
	defer resp.Body.Close()

	// Draft section 5: only 200 counts; every other status, redirects included, is an error.
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return response{}, fmt.Errorf("%w: %s to %q", ErrRedirected, resp.Status, resp.Header.Get("Location"))
	case resp.StatusCode != http.StatusOK:
		return response{}, fmt.Errorf("%w: %s", ErrStatus, resp.Status)
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return response{}, fmt.Errorf("%w: %q", ErrContentType, resp.Header.Get("Content-Type"))
	}
	// Draft section 8.7: a document larger than the limit is an error.
	body, err := netguard.ReadBody(resp, MaxDocumentSize, ErrTooLarge)
	switch {
	case errors.Is(err, ErrTooLarge):
		return response{}, err
	case err != nil:
		return response{}, fmt.Errorf("%w: reading the body: %w", ErrFetch, err)
	}
	return response{body: body, header: resp.Header}, nil
}

// closeIdle drops pooled connections (tests use it to force a new dial).
func (f *fetcher) closeIdle() {
	f.strict.CloseIdleConnections()
	f.permissive.CloseIdleConnections()
}
