package graphql_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/resource"
	membergraphql "github.com/proctorhq/proctor/resource/graphql"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

const viewerID = `{ viewer { id } }`

// memberScopes is the scope of every 401: what a member client can get.
const memberScopes = "account:read account:write"

// challenge checks a 401 or 403 Bearer challenge: the error code, the called origin's metadata
// for the Member API (RFC 9728 section 3.1), and the scope ("" for none). For a 401 it also
// follows resource_metadata: the document describes the Member API and lists the scopes the
// challenge names, so a client reading either asks for nothing it is refused.
func challenge(t *testing.T, what string, r *response, tn *school.School, status int, code, scope string) {
	t.Helper()
	h := r.header.Get("WWW-Authenticate")
	if r.status != status || r.Error != code {
		t.Errorf("%s: %d %q, want %d %q (%s)", what, r.status, r.Error, status, code, r.raw)
	}
	metadata := tn.URL(endpoint.ProtectedResourceMetadata + endpoint.MemberGraphQL)
	if !strings.HasPrefix(h, "Bearer ") || !strings.Contains(h, `error="`+code+`"`) ||
		!strings.Contains(h, `resource_metadata="`+metadata+`"`) {
		t.Errorf("%s: WWW-Authenticate %q", what, h)
	}
	if scope != "" && !strings.Contains(h, `scope="`+scope+`"`) || scope == "" && strings.Contains(h, "scope=") {
		t.Errorf("%s: WWW-Authenticate %q, want scope %q", what, h, scope)
	}
	if status != http.StatusUnauthorized {
		return
	}
	resp, err := http.Get(metadata)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var md struct {
		Resource        string   `json:"resource"`
		ScopesSupported []string `json:"scopes_supported"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&md); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: GET %s: %d %v", what, metadata, resp.StatusCode, err)
	}
	if md.Resource != tn.URL(endpoint.MemberGraphQL) || strings.Join(md.ScopesSupported, " ") != scope {
		t.Errorf("%s: the metadata names %q with scopes %v, the challenge %q", what, md.Resource, md.ScopesSupported, scope)
	}
}

// TestProtectedResourceErrors walks the protected-resource rows of the spec's Errors table.
func TestProtectedResourceErrors(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		seeded(e)
		good := e.Token(e.A, sam, bothScopes)
		if r := e.post(e.A, good, viewerID, nil); r.status != http.StatusOK || len(r.Errors) != 0 {
			t.Fatalf("a good token: %d %s", r.status, r.raw)
		}

		for _, tc := range []struct {
			name  string
			token string
		}{
			{"no token", ""},
			{"garbled token", "not-a-token"},
			{"malformed header", "a b"},
			{"forged token", "abc.def"},
			{"expired token", e.Token(e.A, sam, servertest.TokenOptions{Scopes: bothScopes.Scopes, Expired: true})},
			{"revoked token", e.Token(e.A, sam, servertest.TokenOptions{Scopes: bothScopes.Scopes, Revoked: true})},
			// Spec, Authentication 5: bound to another origin. School B's token is stored at B,
			// so A does not know it; the other is stored at A but names B's origin.
			{"token of school B at school A", e.Token(e.B, sam, bothScopes)},
			{"token bound to school B's origin", e.Token(e.A, sam, servertest.TokenOptions{Scopes: bothScopes.Scopes, Resource: e.B.Origin})},
			{"token without a resource owner", e.Token(e.A, sam, servertest.TokenOptions{Scopes: bothScopes.Scopes, NoOwner: true})},
		} {
			r := e.post(e.A, tc.token, viewerID, nil)
			challenge(t, tc.name, r, e.A, http.StatusUnauthorized, "invalid_token", memberScopes)
			if len(r.Data) != 0 {
				t.Errorf("%s: data in a refusal: %s", tc.name, r.raw)
			}
		}

		// Spec, Authentication 8: a token whose grant has no school_id is refused as issued for
		// another organization, and the client is told to authorize again.
		for name, id := range map[string]*int64{"absent school_id": schoolID(0), "another school_id": schoolID(e.B.SchoolID)} {
			r := e.post(e.A, e.Token(e.A, sam, servertest.TokenOptions{Scopes: bothScopes.Scopes, SchoolID: id}), viewerID, nil)
			challenge(t, name, r, e.A, http.StatusUnauthorized, "invalid_token", memberScopes)
			if h := r.header.Get("WWW-Authenticate"); !strings.Contains(h, "different organization") || !strings.Contains(h, "authorization code flow again") {
				t.Errorf("%s: the challenge does not say to authorize again: %q", name, h)
			}
		}

		// Neither account scope: 403 with the scope to ask for.
		r := e.post(e.A, e.Token(e.A, sam, servertest.TokenOptions{Scopes: []string{"openid", "profile", "email"}}), viewerID, nil)
		challenge(t, "neither account scope", r, e.A, http.StatusForbidden, "insufficient_scope", "account:read")
	})
}

// TestOtherScope: a token holding one of the two account scopes but asking for what the other
// grants gets 200, an entry in errors naming the scope, and no challenge (spec, Errors).
func TestOtherScope(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		seeded(e)
		writeOnly := e.Token(e.A, sam, writeScope)
		readOnly := e.Token(e.A, sam, readScope)
		for _, tc := range []struct {
			name, token, query, scope string
		}{
			{"viewer with account:write only", writeOnly, `{ viewer { id name } }`, "account:read"},
			{"payments with account:write only", writeOnly, `{ viewer { payments { nodes { tradeNo } } } }`, "account:read"},
			{"markAllNotificationsRead with account:read only", readOnly, `mutation { markAllNotificationsRead { markedCount } }`, "account:write"},
			{"markNotificationRead with account:read only", readOnly, `mutation { markNotificationRead(id: "1") { id } }`, "account:write"},
			{"updateNotificationSubscription with account:read only", readOnly,
				`mutation { updateNotificationSubscription(input: {topic: posts, channel: email, enabled: true}) { enabled } }`, "account:write"},
		} {
			r := e.post(e.A, tc.token, tc.query, nil)
			if r.status != http.StatusOK || r.header.Get("WWW-Authenticate") != "" {
				t.Errorf("%s: %d, WWW-Authenticate %q", tc.name, r.status, r.header.Get("WWW-Authenticate"))
			}
			if len(r.Errors) != 1 || r.code(0) != "INSUFFICIENT_SCOPE" || !strings.Contains(r.Errors[0].Message, tc.scope) {
				t.Errorf("%s: errors %s, want one INSUFFICIENT_SCOPE naming %s", tc.name, r.raw, tc.scope)
			}
		}

		// The write-only token's mutation works and changed nothing it may not read.
		r := e.post(e.A, writeOnly, `mutation { markAllNotificationsRead { markedCount unreadNotificationCount } }`, nil)
		if r.status != http.StatusOK || len(r.Errors) != 0 || string(r.Data) != `{"markAllNotificationsRead":{"markedCount":2,"unreadNotificationCount":0}}` {
			t.Errorf("markAllNotificationsRead with account:write: %d %s", r.status, r.raw)
		}
	})
}

// TestNoVerdict: when the token cannot be checked, the answer is 503 temporarily_unavailable
// without a challenge, so that the client retries rather than re-authorizes.
func TestNoVerdict(t *testing.T) {
	e := seeded(newEnv(t, "sqlite"))
	token := e.Token(e.A, sam, bothScopes)
	if err := e.Store.Close(); err != nil {
		t.Fatal(err)
	}
	r := e.post(e.A, token, viewerID, nil)
	if r.status != http.StatusServiceUnavailable || r.Error != "temporarily_unavailable" || r.header.Get("WWW-Authenticate") != "" {
		t.Errorf("no verdict: %d %q, WWW-Authenticate %q", r.status, r.Error, r.header.Get("WWW-Authenticate"))
	}
}

// TestOnlyPOST: the endpoint is POST only.
func TestOnlyPOST(t *testing.T) {
	e := newEnv(t, "sqlite")
	if status, _, _ := e.Send(http.MethodGet, e.A.URL(endpoint.MemberGraphQL+"?query=%7Bviewer%7Bid%7D%7D"), "", nil); status != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d, want 405", status)
	}
}

// TestVerifierContract runs the handler on a verifier of its own, for the verdicts the store
// cannot easily be made to give.
func TestVerifierContract(t *testing.T) {
	tn := schools.School(t, schools.File(1, "a", "A", "https://a.example.test"))
	for _, tc := range []struct {
		name   string
		err    error
		status int
		header bool
	}{
		{"no verdict", resource.ErrNoVerdict, http.StatusServiceUnavailable, false},
		{"invalid", resource.ErrInvalidToken, http.StatusUnauthorized, true},
		{"other organization", resource.ErrOtherOrganization, http.StatusUnauthorized, true},
	} {
		r := mux.NewRouter()
		membergraphql.New(membergraphql.Deps{Verifier: verdict{tc.err}}).Mount(r)
		req := httptest.NewRequestWithContext(school.NewContext(context.Background(), tn), http.MethodPost, endpoint.MemberGraphQL, strings.NewReader(`{"query":"{viewer{id}}"}`))
		req.Header.Set("Authorization", "Bearer abc")
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code != tc.status || (w.Header().Get("WWW-Authenticate") != "") != tc.header {
			t.Errorf("%s: %d, WWW-Authenticate %q", tc.name, w.Code, w.Header().Get("WWW-Authenticate"))
		}
	}
}

type verdict struct{ err error }

func (v verdict) Verify(context.Context, string) (resource.Grant, error) {
	return resource.Grant{}, v.err
}
