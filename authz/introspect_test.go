package authz_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/resource/resourcetest"
	"github.com/proctorhq/proctor/school"
)

// TestIntrospection: the internal endpoint answers RFC 7662 for the named school, only with the
// internal API key, and the remote verifier built on it agrees with the store verifier.
func TestIntrospection(t *testing.T) {
	e := newEnv(t, "sqlite")
	tr := e.tokens("openid", "account:read")
	introspect := func(key string, form url.Values) (int, string) {
		status, _, body := resourcetest.Send(t, http.MethodPost, e.internal.URL+resource.IntrospectPath, key,
			strings.NewReader(form.Encode()), "Content-Type", "application/x-www-form-urlencoded")
		return status, string(body)
	}
	form := url.Values{"token": {tr.AccessToken}, "school_id": {"1"}}
	for _, key := range []string{"", "wrong-key-wrong-key-wrong-key-wrong-key"} {
		if status, _ := introspect(key, form); status != http.StatusUnauthorized {
			t.Errorf("key %q: %d", key, status)
		}
	}
	status, body := introspect(testInternalKey, form)
	if status != 200 || !strings.Contains(body, `"active":true`) || !strings.Contains(body, `"school_id":1`) ||
		!strings.Contains(body, `"scope":"openid account:read"`) || !strings.Contains(body, `"sub":"`) {
		t.Fatalf("introspect: %d %s", status, body)
	}
	for name, f := range map[string]url.Values{
		"other school":  {"token": {tr.AccessToken}, "school_id": {"2"}},
		"refresh token": {"token": {tr.RefreshToken}, "school_id": {"1"}},
		"garbage":       {"token": {"x.y"}, "school_id": {"1"}},
		"no school":     {"token": {tr.AccessToken}},
	} {
		if status, body := introspect(testInternalKey, f); status != 200 || body != "{\"active\":false}\n" {
			t.Errorf("%s: %d %s", name, status, body)
		}
	}
	// The public listener does not serve it.
	if resp := e.browser().Post(e.url(e.a, resource.IntrospectPath), form); resp.Status != http.StatusNotFound {
		t.Errorf("introspection on the public listener: %d", resp.Status)
	}

	remote := resource.NewRemoteVerifier(e.internal.URL+resource.IntrospectPath, []byte(testInternalKey))
	ctxA := school.NewContext(context.Background(), e.a)
	g, err := remote.Verify(ctxA, tr.AccessToken)
	if err != nil || g.MemberID == 0 || !g.HasScope("account:read") || g.Resource != e.a.Origin {
		t.Fatalf("remote verify: %+v %v", g, err)
	}
	if _, err := remote.Verify(school.NewContext(context.Background(), e.b), tr.AccessToken); !errors.Is(err, resource.ErrInvalidToken) {
		t.Errorf("school A's token verified remotely at B: %v", err)
	}
	// An unreachable or failing introspection endpoint is no verdict, never invalid.
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 502) }))
	defer down.Close()
	for _, u := range []string{down.URL, "http://127.0.0.1:1/internal/introspect"} {
		if _, err := resource.NewRemoteVerifier(u, []byte(testInternalKey)).Verify(ctxA, tr.AccessToken); !errors.Is(err, resource.ErrNoVerdict) {
			t.Errorf("%s: %v, want ErrNoVerdict", u, err)
		}
	}
}
