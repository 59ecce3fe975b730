package client_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/client"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

func TestCheckRedirectURI(t *testing.T) {
	for _, tc := range []struct {
		uri  string
		want string // "" accepts
	}{
		{"https://app.example/cb", ""},
		{"https://app.example:8443/cb?x=1", ""},
		{"http://127.0.0.1/callback", ""},
		{"http://127.0.0.1:53682/callback", ""},
		{"http://[::1]/callback", ""},
		{"http://[::1]:8080/", ""},
		{"http://app.example/cb", "plain http"},
		{"http://localhost/cb", "plain http"},
		{"http://127.0.0.2/cb", "plain http"},
		{"http://[::ffff:127.0.0.1]/cb", "plain http"},
		{"http://127.0.0.1.app.example/cb", "plain http"},
		{"https://app.example/cb#frag", "fragment"},
		{"https://app.example/cb#", "fragment"},
		{"https://user:pw@app.example/cb", "user name"},
		{"com.example.app:/cb", "must use https"},
		{"javascript:alert(1)", "must use https"},
		{"ftp://app.example/cb", "must use https"},
		{"https:app.example", "not an absolute URL"},
		{"https:///cb", "not an absolute URL"},
		{"/cb", "not an absolute URL"},
		{"", "not an absolute URL"},
		{"https://app.example/\x7f", "not an absolute URL"},
		{"https://app.example/" + strings.Repeat("a", client.MaxRedirectURI), "at most"},
	} {
		err := client.CheckRedirectURI(tc.uri)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q refused: %v", tc.uri, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want an error with %q", tc.uri, err, tc.want)
		}
	}
}

func TestCheckRedirectURIs(t *testing.T) {
	ok := "https://app.example/cb"
	if err := client.CheckRedirectURIs([]string{ok, "http://127.0.0.1/cb"}); err != nil {
		t.Error(err)
	}
	many := make([]string, client.MaxRedirectURIs+1)
	for i := range many {
		many[i] = ok + strings.Repeat("x", i)
	}
	if err := client.CheckRedirectURIs(many[:client.MaxRedirectURIs]); err != nil {
		t.Errorf("%d URIs refused: %v", client.MaxRedirectURIs, err)
	}
	for _, tc := range []struct {
		uris []string
		want []string
	}{
		{nil, []string{"at least one"}},
		{many, []string{"at most 10"}},
		{[]string{ok, ok}, []string{"twice"}},
		// Every problem at once.
		{[]string{"http://a.example/", "https://b.example/#x"}, []string{"plain http", "fragment"}},
	} {
		err := client.CheckRedirectURIs(tc.uris)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %v, want %q", tc.uris, err, w)
			}
		}
	}
}

func TestCheckClientName(t *testing.T) {
	for name, ok := range map[string]bool{
		"Study Buddy":               true,
		"日本語の名前":                    true,
		strings.Repeat("é", 100):    true,
		strings.Repeat("é", 101):    false,
		"":                          false,
		"   ":                       false,
		"line\nbreak":               false,
		"tab\there":                 false,
		"bidi \u202eevil":           false,
		"\xff":                      false,
		`<script>alert(1)</script>`: true, // escaped wherever it is shown
		"Zero\u200bwidth":           false,
		"joiner\u200dhere":          false,
		"no\ufeffbreak":             false,
		"isolate \u2066evil\u2069":  false,
		"left-to-right \u200emark":  false,
		"line\u2028separator":       false,
		"private \ue000use":         false,
		"hangul \u3164filler":       false,
		"unassigned \U000e0080":     false,
		"emoji \u2764\ufe0f":        true, // a variation selector only picks how it is drawn
		"café au lait":              true,
		"non\u00a0breaking space":   true,
	} {
		if err := client.CheckName(name); (err == nil) != ok {
			t.Errorf("%q: %v, want ok=%v", name, err, ok)
		}
	}
}

func TestClientScopes(t *testing.T) {
	names := func(kind storage.ClientKind) []string {
		var out []string
		for _, s := range client.Scopes(kind) {
			out = append(out, s.Name)
		}
		return out
	}
	if got := names(storage.ClientMember); !slices.Equal(got, []string{"openid", "profile", "email", "account:read", "account:write"}) {
		t.Errorf("member scopes %v", got)
	}
	op := names(storage.ClientOperator)
	if slices.Contains(op, "account:read") || slices.Contains(op, "account:write") || !slices.Contains(op, "courses:read") || !slices.Contains(op, "openid") {
		t.Errorf("operator scopes %v", op)
	}
	if client.Scopes("robot") != nil {
		t.Error("scopes for an unknown kind")
	}

	got, err := client.CheckScopes(storage.ClientMember, []string{"account:write", "openid", "account:write"})
	if err != nil || !slices.Equal(got, []string{"openid", "account:write"}) {
		t.Errorf("got %v, %v; want catalogue order without duplicates", got, err)
	}
	for _, tc := range []struct {
		kind  storage.ClientKind
		names []string
		want  string
	}{
		{storage.ClientMember, nil, "at least one"},
		{storage.ClientMember, []string{"openid", "courses:read"}, `"courses:read"`},
		{storage.ClientOperator, []string{"account:read"}, `"account:read"`},
		{storage.ClientMember, []string{"nonsense"}, `"nonsense"`},
		{"robot", []string{"openid"}, "kind"},
	} {
		if _, err := client.CheckScopes(tc.kind, tc.names); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: %v, want %q", tc.kind, tc.names, err, tc.want)
		}
	}
}

func TestCheckClientRequest(t *testing.T) {
	req, err := client.CheckRequest(client.Request{
		Kind: storage.ClientMember, Name: "  App  ", RedirectURIs: []string{" https://app.example/cb "}, Scopes: []string{"account:read", "openid"},
	})
	if err != nil || req.Name != "App" || req.RedirectURIs[0] != "https://app.example/cb" || !slices.Equal(req.Scopes, []string{"openid", "account:read"}) {
		t.Errorf("normalised %+v, %v", req, err)
	}
	_, err = client.CheckRequest(client.Request{Kind: storage.ClientMember, RedirectURIs: []string{"http://x.example/"}})
	var ce *client.RequestError
	if !errors.As(err, &ce) {
		t.Fatalf("error %T %v", err, err)
	}
	if len(ce.For(client.FieldName)) != 1 || len(ce.For(client.FieldRedirectURIs)) != 1 || len(ce.For(client.FieldScopes)) != 1 {
		t.Errorf("problems %+v", ce.Problems)
	}
	// Each problem names its rule and its particulars, for a page that says it in another
	// language.
	var rules []string
	for _, p := range ce.Problems {
		rules = append(rules, p.Rule)
	}
	if !slices.Equal(rules, []string{"name_missing", "uri_http_host", "scopes_missing"}) || ce.Problems[1].Values["URI"] != `"http://x.example/"` {
		t.Errorf("rules %v, problems %+v", rules, ce.Problems)
	}
}

// newManager is a manager of the clients of school 1 in a fresh SQLite store, and the context of
// that school.
func newManager(t *testing.T) (*client.Manager, storage.Clients, context.Context) {
	t.Helper()
	st := storetest.Open(t, gormstore.DriverSQLite)
	if err := st.SyncSchool(t.Context(), 1, "a", "A"); err != nil {
		t.Fatal(err)
	}
	ctx := school.NewContext(t.Context(), &school.School{SchoolID: 1, Subdomain: "a", Name: "A"})
	return client.NewManager(st, config.Secret(bytes.Repeat([]byte("k"), 32))), st, ctx
}

func TestCreate(t *testing.T) {
	m, st, ctx := newManager(t)
	h := m.Hasher()
	base := client.Request{Kind: storage.ClientMember, Name: "App", RedirectURIs: []string{"http://127.0.0.1/cb"}, Scopes: []string{"openid"}}

	pub, secret, err := m.Create(ctx, base)
	if err != nil || secret != "" || pub.SecretHash != "" || pub.TokenEndpointAuthMethod != storage.AuthMethodNone ||
		!strings.HasPrefix(pub.ID, "pc_") || pub.Kind != storage.ClientMember || pub.ApplicationType != "native" {
		t.Errorf("public: %+v %q %v", pub, secret, err)
	}

	conf := base
	conf.Confidential = true
	conf.RedirectURIs = []string{"https://app.example/cb"}
	c, secret, err := m.Create(ctx, conf)
	if err != nil || len(secret) != 43 || c.TokenEndpointAuthMethod != storage.AuthMethodSecretPost || c.ApplicationType != "web" {
		t.Fatalf("confidential: %+v %q %v", c, secret, err)
	}
	if c.SecretHash == secret || h.Compare(t.Context(), []byte(c.SecretHash), []byte(secret)) != nil {
		t.Error("the stored hash is not the keyed hash of the secret")
	}
	if stored, err := st.GetClient(ctx, c.ID); err != nil || stored.SecretHash != c.SecretHash || stored.Name != "App" {
		t.Errorf("stored: %+v %v", stored, err)
	}
	if c2, _, _ := m.Create(ctx, conf); c2.ID == c.ID || c2.SecretHash == c.SecretHash {
		t.Error("two clients share an id or a secret")
	}

	var invalid *client.RequestError
	if _, _, err := m.Create(ctx, client.Request{Kind: storage.ClientMember}); !errors.As(err, &invalid) {
		t.Errorf("an empty request: %v", err)
	}
}

func TestRotateSecret(t *testing.T) {
	m, st, ctx := newManager(t)
	h := m.Hasher()
	create := func(kind storage.ClientKind, confidential bool) storage.Client {
		t.Helper()
		c, _, err := m.Create(ctx, client.Request{Kind: kind, Name: "App", RedirectURIs: []string{"https://app.example/cb"},
			Scopes: []string{"openid"}, Confidential: confidential})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	conf := create(storage.ClientMember, true)
	c, secret, err := m.RotateSecret(ctx, conf.ID, storage.ClientMember)
	if err != nil || c.SecretHash == conf.SecretHash || h.Compare(ctx, []byte(c.SecretHash), []byte(secret)) != nil {
		t.Fatalf("rotate: %+v %v", c, err)
	}
	if stored, _ := st.GetClient(ctx, conf.ID); stored.SecretHash != c.SecretHash {
		t.Error("the new hash is not stored")
	}
	if _, _, err := m.RotateSecret(ctx, create(storage.ClientMember, false).ID, ""); !errors.Is(err, client.ErrPublic) {
		t.Errorf("public client: %v", err)
	}
	if _, _, err := m.RotateSecret(ctx, create(storage.ClientOperator, true).ID, storage.ClientMember); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("operator client as a member client: %v", err)
	}
	if _, _, err := m.RotateSecret(ctx, "pc_missing", ""); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("missing client: %v", err)
	}
}

func TestDelete(t *testing.T) {
	m, st, ctx := newManager(t)
	c, _, err := m.Create(ctx, client.Request{Kind: storage.ClientMember, Name: "App", RedirectURIs: []string{"https://app.example/cb"}, Scopes: []string{"openid"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Delete(ctx, c.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetClient(ctx, c.ID); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the deleted client is still there: %v", err)
	}
	if err := m.Delete(ctx, c.ID, time.Now()); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("deleting it again: %v", err)
	}
}
