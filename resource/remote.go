package resource

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/proctorhq/proctor/school"
)

// RemoteVerifier verifies tokens through the authorization server's internal introspection
// endpoint, for a Member API process that runs on its own (`proctor serve --only member-api`).
// A network failure or a 5xx answer is "no verdict" (503 to the client, which may retry), never
// "invalid".
type RemoteVerifier struct {
	url    string
	apiKey string
	client *http.Client
}

// NewRemoteVerifier returns a verifier calling introspectionURL with apiKey.
func NewRemoteVerifier(introspectionURL string, apiKey []byte) *RemoteVerifier {
	return &RemoteVerifier{
		url:    introspectionURL,
		apiKey: string(apiKey),
		// Short: the Member API's own request is waiting, and a slow answer is better turned
		// into a retryable 503 than into a hung client.
		client: &http.Client{Timeout: 3 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}},
	}
}

// maxIntrospectionBytes bounds the answer read from the introspection endpoint.
const maxIntrospectionBytes = 64 << 10

// Verify implements Verifier.
func (v *RemoteVerifier) Verify(ctx context.Context, token string) (Grant, error) {
	t, err := school.FromContext(ctx)
	if err != nil {
		return Grant{}, err
	}
	if token == "" {
		return Grant{}, ErrNoToken
	}
	form := url.Values{"token": {token}, "school_id": {strconv.FormatInt(t.SchoolID, 10)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.url, strings.NewReader(form.Encode()))
	if err != nil {
		return Grant{}, fmt.Errorf("%w: %w", ErrNoVerdict, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+v.apiKey)
	resp, err := v.client.Do(req)
	if err != nil {
		return Grant{}, fmt.Errorf("%w: introspection: %w", ErrNoVerdict, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Grant{}, fmt.Errorf("%w: introspection answered %s", ErrNoVerdict, resp.Status)
	}
	var in Introspection
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxIntrospectionBytes)).Decode(&in); err != nil {
		return Grant{}, fmt.Errorf("%w: introspection answer: %w", ErrNoVerdict, err)
	}
	// The answer must be about this school and this origin, whatever the server thinks.
	if !in.Active || in.SchoolID != t.SchoolID || !BoundTo(t, in.Resource) {
		return Grant{}, ErrInvalidToken
	}
	g := Grant{ClientID: in.ClientID, Resource: in.Resource, ExpiresAt: time.Unix(in.Exp, 0), IssuedAt: time.Unix(in.Iat, 0)}
	if in.Scope != "" {
		g.Scopes = strings.Fields(in.Scope)
	}
	if in.Sub != "" {
		if g.MemberID, err = strconv.ParseInt(in.Sub, 10, 64); err != nil {
			return Grant{}, ErrInvalidToken
		}
	}
	return g, nil
}
