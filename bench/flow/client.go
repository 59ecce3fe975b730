package flow

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/proctorhq/proctor/endpoint"
)

// Client is one member's browser and app at once: its HTTP client holds the cookie jar of the
// login session, and it sends the token requests a native app sends.
type Client struct {
	// HTTP sends the requests. It must not follow redirects (NewHTTP): the flows read each
	// Location themselves, as an app's loopback listener would receive the code.
	HTTP *http.Client
	// Origin is the school's base URL: request URLs are made from it, and it is the resource
	// asked for and the iss the authorization redirect must carry.
	Origin string
	// ClientID, RedirectURI and Scope are the member app's: what Authorize asks for, and whom
	// Exchange, Refresh and Revoke speak for.
	ClientID, RedirectURI, Scope string
	// Where, if not empty, names the server talked to in error messages ("GET /login at A").
	Where string
	// MaxBody bounds what is read of one answer; 0 means DefaultMaxBody.
	MaxBody int64
}

// DefaultMaxBody bounds what is read of one answer when Client.MaxBody is not set.
const DefaultMaxBody = 4 << 20

// NewHTTP returns a client over tr keeping cookies in jar, each request bounded by timeout, that
// does not follow redirects.
func NewHTTP(tr http.RoundTripper, jar http.CookieJar, timeout time.Duration) *http.Client {
	return &http.Client{
		Transport: tr, Jar: jar, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Response is an answer read in full.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// String describes the answer for an error message: the status and the start of the body (an
// OAuth error object or an error page; never a token, which only a success carries).
func (r Response) String() string {
	body := strings.Join(strings.Fields(string(r.Body)), " ")
	if len(body) > 160 {
		body = body[:160] + "..."
	}
	return fmt.Sprintf("status %d: %s", r.Status, body)
}

// Err is the error of an unexpected answer to what.
func (r Response) Err(what string) error {
	return fmt.Errorf("%s: %s", what, r)
}

// OAuthError is the "error" member of a JSON error body ("" if there is none).
func (r Response) OAuthError() string {
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &e)
	return e.Error
}

// TransportError is a request that got no complete answer (refused, reset, cut off).
type TransportError struct{ Err error }

func (e *TransportError) Error() string { return e.Err.Error() }
func (e *TransportError) Unwrap() error { return e.Err }

// IsTransport reports whether err is a failure to get an answer at all, as opposed to an answer
// that was not the one wanted.
func IsTransport(err error) bool {
	var te *TransportError
	return errors.As(err, &te)
}

// at names what for an error message, with the server talked to when there is one.
func (c *Client) at(what string) string {
	if c.Where == "" {
		return what
	}
	return what + " at " + c.Where
}

// URL is path on the school's origin.
func (c *Client) URL(path string) string { return c.Origin + path }

// Do sends req and reads the answer; a failure to get one is a *TransportError.
func (c *Client) Do(req *http.Request) (Response, error) {
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return Response{}, &TransportError{err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, cmp.Or(c.MaxBody, DefaultMaxBody)))
	if err != nil {
		return Response{}, &TransportError{err}
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

// Send makes the request (body, if not nil, of contentType, if not empty) with header's fields
// added, and sends it.
func (c *Client) Send(ctx context.Context, method, rawURL, contentType string, body []byte, header http.Header) (Response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, r)
	if err != nil {
		return Response{}, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return c.Do(req)
}

func (c *Client) Get(ctx context.Context, rawURL string, header http.Header) (Response, error) {
	return c.Send(ctx, http.MethodGet, rawURL, "", nil, header)
}

func (c *Client) Post(ctx context.Context, rawURL, contentType string, body []byte, header http.Header) (Response, error) {
	return c.Send(ctx, http.MethodPost, rawURL, contentType, body, header)
}

func (c *Client) PostForm(ctx context.Context, rawURL string, form url.Values) (Response, error) {
	return c.Post(ctx, rawURL, "application/x-www-form-urlencoded", []byte(form.Encode()), nil)
}

// Bearer is the header that presents an access token.
func Bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

// Userinfo presents an access token at the UserInfo endpoint.
func (c *Client) Userinfo(ctx context.Context, accessToken string) (Response, error) {
	return c.Get(ctx, c.URL(endpoint.Userinfo), Bearer(accessToken))
}

// submit posts the form with a csrf_token of page, the answer to GET pageURL, with set applied
// to its values. name is the page in error messages: "GET name" for an answer that is not the
// page, form for a page without the form.
func (c *Client) submit(ctx context.Context, pageURL string, page Response, name, form string, set func(url.Values)) (Response, error) {
	if page.Status != http.StatusOK {
		return Response{}, page.Err(c.at("GET " + name))
	}
	f, err := FormWith(pageURL, page.Body, "csrf_token")
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", c.at(form), err)
	}
	set(f.Values)
	return c.PostForm(ctx, f.Action, f.Values)
}

// open GETs the page at path and submits it (submit).
func (c *Client) open(ctx context.Context, path string, set func(url.Values)) (Response, error) {
	pageURL := c.URL(path)
	page, err := c.Get(ctx, pageURL, nil)
	if err != nil {
		return Response{}, err
	}
	return c.submit(ctx, pageURL, page, path, "GET "+path, set)
}

// Login signs the browser in as email through the sign-in form.
func (c *Client) Login(ctx context.Context, email, password string) error {
	resp, err := c.open(ctx, "/login", func(v url.Values) {
		v.Set("email", email)
		v.Set("password", password)
	})
	if err != nil {
		return err
	}
	if resp.Status != http.StatusSeeOther && resp.Status != http.StatusFound {
		return resp.Err(c.at("POST /login as " + email))
	}
	return nil
}

// Logout signs the browser out through the sign-out form: GET /logout (the confirmation page)
// and POST of it with its csrf_token, which deletes the session.
func (c *Client) Logout(ctx context.Context) error {
	resp, err := c.open(ctx, "/logout", func(url.Values) {})
	if err != nil {
		return err
	}
	if resp.Status != http.StatusOK {
		return resp.Err(c.at("POST /logout"))
	}
	return nil
}
