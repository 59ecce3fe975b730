package authz

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/ory/fosite"

	"github.com/proctorhq/proctor/school"
)

// errInvalidTarget is RFC 8707's error for a resource the server will not issue for; fosite has
// no such value.
var errInvalidTarget = &fosite.RFC6749Error{
	ErrorField:       "invalid_target",
	DescriptionField: "The requested resource is invalid, unknown or malformed for this school.",
	CodeField:        http.StatusBadRequest,
}

// ParseResource checks an RFC 8707 `resource` value against the school. Accepted: the school's
// origin, with or without a trailing slash, and absolute URLs under it (such as {base_url}/mcp);
// never a fragment, query or user info (RFC 8707 section 2). Every accepted value binds the token
// to the origin; the exact value is kept so that the token request can be compared with it.
func ParseResource(t *school.School, raw string) error {
	if raw == "" {
		return errors.New("resource is required")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("resource is not a URL")
	}
	switch {
	case !u.IsAbs() || u.Opaque != "":
		return errors.New("resource must be an absolute URL")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return errors.New("resource must not have a fragment")
	case u.RawQuery != "" || u.ForceQuery:
		return errors.New("resource must not have a query")
	case u.User != nil:
		return errors.New("resource must not carry user info")
	case !t.SameOrigin(u):
		return errors.New("resource is not this school's origin")
	case strings.Contains(u.Path, "/../") || strings.HasSuffix(u.Path, "/..") || strings.Contains(u.Path, "/./"):
		return errors.New("resource must not have dot segments")
	}
	return nil
}

// sameResource compares the token request's resource with the authorization's: equal, or the
// origin written with and without its trailing slash (clients that parse and re-serialise URLs
// add the slash).
func sameResource(a, b string) bool {
	return a == b || strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/") && originOnly(a) && originOnly(b)
}

func originOnly(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Path == "" || u.Path == "/")
}

// resourceCheck is the token-endpoint half of RFC 8707: the code exchange must repeat the
// resource sent at authorization; a refresh may omit it but must not change it.
type resourceCheck struct{ requestCheck }

func (resourceCheck) HandleTokenEndpointRequest(ctx context.Context, r fosite.AccessRequester) error {
	sess, err := sessionOf(r)
	if err != nil {
		return err
	}
	if len(r.GetRequestForm()["resource"]) > 1 {
		// RFC 8707 allows several; a token is bound to one origin (as at /oauth/authorize).
		return errInvalidTarget.WithHint("At most one resource parameter is allowed.")
	}
	got := r.GetRequestForm().Get("resource")
	if got == "" && r.GetGrantTypes().ExactOne("refresh_token") {
		return nil
	}
	if !sameResource(got, sess.Resource) {
		return errInvalidTarget.WithHint("The resource must be the one sent to the authorization endpoint.")
	}
	return nil
}

func (resourceCheck) CanHandleTokenEndpointRequest(_ context.Context, r fosite.AccessRequester) bool {
	return r.GetGrantTypes().ExactOne("authorization_code") || r.GetGrantTypes().ExactOne("refresh_token")
}
