package admin_test

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/admin"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/storage"
)

// formExpired is what a form whose csrf_token did not match says, in English.
const formExpired = "This form has expired. Check it and submit it again."

// Without features.mcp_connections the pages do not exist: every method, signed in or not,
// gets the router's ordinary 404, the same as any unknown path.
func TestFeatureOffIsNotFound(t *testing.T) {
	e := newEnv(t)
	anon := e.browser()
	owner := e.signedIn(e.b, ownerEmail)
	unknown := anon.Get(e.b.Origin + "/no/such/path")
	for _, b := range []*browser{anon, owner} {
		for _, r := range []page{
			b.Get(e.appsURL(e.b, "")),
			b.Get(e.appsURL(e.b, "/new")),
			b.Get(e.appsURL(e.b, "/pc_x")),
			b.Post(e.appsURL(e.b, ""), url.Values{"name": {"X"}}),
			b.Post(e.appsURL(e.b, "/pc_x/delete"), url.Values{}),
			b.Do(http.MethodPut, e.appsURL(e.b, ""), nil),
		} {
			if r.Status != http.StatusNotFound || r.Body != unknown.Body {
				t.Errorf("%s %s: %d %s, want the 404 of an unknown path", r.Method, r.URL, r.Status, r.Body)
			}
		}
	}
	if list, _, _ := e.store.ListClients(e.ctx(e.b), "", storage.Page{}); len(list) != 0 {
		t.Errorf("clients created at school B: %+v", list)
	}
}

// Not signed in: every page sends the browser to sign in and come back.
func TestNotSignedInRedirectsToLogin(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	for _, path := range []string{"", "/new", "/pc_x", "/pc_x/rotate", "/pc_x/delete"} {
		r := b.Get(e.appsURL(e.a, path))
		want := login.LoginPath + "?return_to=" + url.QueryEscape(admin.AppsPath+path)
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != want {
			t.Errorf("GET %s: %d Location %q, want 303 %q", path, r.Status, r.Header.Get("Location"), want)
		}
	}
	r := b.Post(e.appsURL(e.a, ""), appForm{name: "X", redirectURIs: callback, scopes: []string{"openid"}}.values("x"))
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), login.LoginPath+"?") {
		t.Errorf("POST: %d %q", r.Status, r.Header.Get("Location"))
	}
	// After signing in, the browser is back on the list.
	login := b.Get(e.a.Origin + r.Header.Get("Location"))
	f := formWith(t, login.Body, "email")
	f.Values.Set("email", ownerEmail)
	f.Values.Set("password", memberPass)
	done := b.Post(e.a.Origin+"/login", f.Values)
	if done.Header.Get("Location") != admin.AppsPath {
		t.Errorf("after sign-in: Location %q", done.Header.Get("Location"))
	}
	if list, _, _ := e.store.ListClients(e.ctx(e.a), "", storage.Page{}); len(list) != 0 {
		t.Errorf("a client was created without a session: %+v", list)
	}
}

// Only owners and admins: students, lecturers and members without a role at the school get a
// 403 page, whatever they ask for, and nothing changes.
func TestOnlyOperators(t *testing.T) {
	e := newEnv(t)
	id := e.signedIn(e.a, ownerEmail).createPublic(e, "Study Buddy")
	for _, email := range []string{studentEmail, lecturerEmail, outsiderEmail} {
		t.Run(email, func(t *testing.T) {
			b := e.signedIn(e.a, email)
			// A signed-in page of consent gives the session's CSRF token: the refusal must not
			// depend on a missing token.
			token := b.Get(e.a.Origin + login.LogoutPath).CSRF(t)
			for _, r := range []page{
				b.Get(e.appsURL(e.a, "")),
				b.Get(e.appsURL(e.a, "/new")),
				b.Get(e.appsURL(e.a, "/"+id)),
				b.Get(e.appsURL(e.a, "/"+id+"/delete")),
				b.Post(e.appsURL(e.a, ""), appForm{name: "Mine", redirectURIs: callback, scopes: []string{"openid"}}.values(token)),
				b.Post(e.appsURL(e.a, "/"+id+"/delete"), url.Values{"csrf_token": {token}}),
			} {
				if r.Status != http.StatusForbidden || !strings.Contains(r.Body, "Only the owners and admins of Northwind") {
					t.Errorf("%s %s: %d, want the 403 page\n%s", r.Method, r.URL.Path, r.Status, r.Body)
				}
				// The language switcher's links come back to the requested address, which the
				// requester wrote; the page itself says nothing of the application.
				if _, main, _ := strings.Cut(r.Body, "<main>"); strings.Contains(main, id) {
					t.Errorf("%s %s: the 403 page shows the client id", r.Method, r.URL.Path)
				}
			}
		})
	}
	list, _, _ := e.store.ListClients(e.ctx(e.a), "", storage.Page{})
	if len(list) != 1 || list[0].ID != id {
		t.Errorf("clients after the refusals: %+v", list)
	}
	// An admin is an operator too.
	if r := e.signedIn(e.a, adminEmail).Get(e.appsURL(e.a, "")); r.Status != http.StatusOK || !strings.Contains(r.Body, id) {
		t.Errorf("admin: %d", r.Status)
	}
}

// A public client: created as a member client of the school, no secret, PKCE; its page shows
// the client_id; a student can authorize it.
func TestCreatePublic(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(e.a, ownerEmail)
	form := b.Get(e.appsURL(e.a, "/new"))
	for _, want := range []string{
		`value="openid" checked`, `value="profile"`, `value="email"`, `value="account:read"`, `value="account:write"`,
		"See your own courses, progress, purchases and notifications at this school", `name="confidential"`,
	} {
		if !strings.Contains(form.Body, want) {
			t.Errorf("form lacks %q", want)
		}
	}
	if strings.Contains(form.Body, "courses:read") {
		t.Error("the form offers an operator scope")
	}
	r := b.Post(e.appsURL(e.a, ""), appForm{
		name: "  Study Buddy ", redirectURIs: "https://buddy.example/cb\r\n\r\nhttp://127.0.0.1/callback\r\n",
		scopes: []string{"account:read", "openid", "account:read"},
	}.values(form.CSRF(t)))
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), admin.AppsPath+"/pc_") {
		t.Fatalf("create: %d Location %q\n%s", r.Status, r.Header.Get("Location"), r.Body)
	}
	id := strings.TrimPrefix(r.Header.Get("Location"), admin.AppsPath+"/")
	c, err := e.client(e.a, id)
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != storage.ClientMember || c.Name != "Study Buddy" || c.SecretHash != "" || c.TokenEndpointAuthMethod != storage.AuthMethodNone ||
		!slices.Equal(c.Scopes, []string{"openid", "account:read"}) ||
		!slices.Equal(c.RedirectURIs, []string{"https://buddy.example/cb", "http://127.0.0.1/callback"}) {
		t.Errorf("stored %+v", c)
	}
	show := b.Get(e.appsURL(e.a, "/"+id))
	if got := textOf(t, show.Body, "client-id"); got != id {
		t.Errorf("page shows client id %q, want %q", got, id)
	}
	if strings.Contains(show.Body, "/rotate") {
		t.Error("a public client's page offers a new secret")
	}
	if r := b.Get(e.appsURL(e.a, "/"+id+"/rotate")); r.Status != http.StatusConflict {
		t.Errorf("rotate a public client: %d", r.Status)
	}
	if list := b.Get(e.appsURL(e.a, "")); !strings.Contains(list.Body, id) || !strings.Contains(list.Body, "Study Buddy") {
		t.Error("the list does not show the new client")
	}
	tr := e.tokens(app(id, ""))
	if e.oauth.Userinfo(e.a, tr.AccessToken) != http.StatusOK {
		t.Error("the public client's token does not work")
	}
}

// A confidential client: the secret is in the POST's answer (no-store) and nowhere else, only
// its keyed hash is stored, and the token endpoint requires it.
func TestCreateConfidential(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(e.a, ownerEmail)
	id, secret, r := b.createConfidential(e, "Grade Sync")
	if got := r.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control %q", got)
	}
	if len(secret) != 43 { // 256 bits, base64url
		t.Errorf("secret %q", secret)
	}
	for _, h := range []string{"Location", "Set-Cookie"} {
		if strings.Contains(strings.Join(r.Header.Values(h), " "), secret) {
			t.Errorf("the secret is in %s", h)
		}
	}
	c, err := e.client(e.a, id)
	if err != nil {
		t.Fatal(err)
	}
	hash, _ := e.hasher.Hash(t.Context(), []byte(secret))
	if c.SecretHash == "" || c.SecretHash == secret || c.SecretHash != string(hash) || c.TokenEndpointAuthMethod != storage.AuthMethodSecretPost ||
		c.Kind != storage.ClientMember {
		t.Errorf("stored %+v", c)
	}
	// Never shown again.
	for _, path := range []string{"", "/" + id, "/" + id + "/rotate", "/" + id + "/delete"} {
		p := b.Get(e.appsURL(e.a, path))
		if p.Status != http.StatusOK || strings.Contains(p.Body, secret) || strings.Contains(p.Body, c.SecretHash) {
			t.Errorf("GET %s: %d, or it shows the secret or its hash", path, p.Status)
		}
	}

	code, p := e.oauth.Code(e.a, studentEmail, app(id, secret), appScopes...)
	if r, tr := e.oauth.Exchange(e.a, app(id, ""), code, p); r.Status != http.StatusUnauthorized || tr.Error != "invalid_client" {
		t.Errorf("exchange without the secret: %d %+v", r.Status, tr)
	}
	if r, tr := e.oauth.Exchange(e.a, app(id, "wrong"+secret), code, p); r.Status != http.StatusUnauthorized || tr.Error != "invalid_client" {
		t.Errorf("exchange with a wrong secret: %d %+v", r.Status, tr)
	}
	if r, tr := e.oauth.Exchange(e.a, app(id, secret), code, p); r.Status != http.StatusOK || tr.AccessToken == "" {
		t.Errorf("exchange with the secret: %d %+v", r.Status, tr)
	}
}

// A new secret replaces the old one at once; tokens already issued keep working.
func TestRotate(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(e.a, ownerEmail)
	id, oldSecret, _ := b.createConfidential(e, "Grade Sync")
	tr := e.tokens(app(id, oldSecret))

	confirm := b.Get(e.appsURL(e.a, "/"+id+"/rotate"))
	if confirm.Status != http.StatusOK {
		t.Fatalf("confirm: %d", confirm.Status)
	}
	f := formWith(t, confirm.Body, "csrf_token")
	r := b.Post(resolve(e.appsURL(e.a, ""), f.Action), f.Values)
	if r.Status != http.StatusOK || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("rotate: %d %q\n%s", r.Status, r.Header.Get("Cache-Control"), r.Body)
	}
	newSecret := textOf(t, r.Body, "client-secret")
	if newSecret == oldSecret || len(newSecret) != 43 || textOf(t, r.Body, "client-id") != id {
		t.Fatalf("new secret %q (old %q)", newSecret, oldSecret)
	}
	if c, _ := e.client(e.a, id); c.SecretHash == newSecret {
		t.Error("the secret itself is stored")
	}
	if r, tr := e.oauth.Refresh(e.a, app(id, oldSecret), tr.RefreshToken); r.Status != http.StatusUnauthorized || tr.Error != "invalid_client" {
		t.Errorf("refresh with the old secret: %d %+v", r.Status, tr)
	}
	if e.oauth.Userinfo(e.a, tr.AccessToken) != http.StatusOK {
		t.Error("rotation revoked an issued token")
	}
	if r, got := e.oauth.Refresh(e.a, app(id, newSecret), tr.RefreshToken); r.Status != http.StatusOK || got.AccessToken == "" {
		t.Errorf("refresh with the new secret: %d %+v", r.Status, got)
	}
}

// Deleting a client removes it and revokes what it holds.
func TestDelete(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(e.a, ownerEmail)
	id := b.createPublic(e, "Study Buddy")
	tr := e.tokens(app(id, ""))
	if e.oauth.Userinfo(e.a, tr.AccessToken) != http.StatusOK {
		t.Fatal("token does not work before the deletion")
	}
	confirm := b.Get(e.appsURL(e.a, "/"+id+"/delete"))
	f := formWith(t, confirm.Body, "csrf_token")
	r := b.Post(resolve(e.appsURL(e.a, ""), f.Action), f.Values)
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != admin.AppsPath {
		t.Fatalf("delete: %d %q\n%s", r.Status, r.Header.Get("Location"), r.Body)
	}
	if _, err := e.client(e.a, id); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("client after deletion: %v", err)
	}
	if got := e.oauth.Userinfo(e.a, tr.AccessToken); got != http.StatusUnauthorized {
		t.Errorf("userinfo with the deleted client's token: %d", got)
	}
	if list := b.Get(e.appsURL(e.a, "")); strings.Contains(list.Body, id) {
		t.Error("the list still shows the deleted client")
	}
	if r := b.Get(e.appsURL(e.a, "/"+id)); r.Status != http.StatusNotFound {
		t.Errorf("deleted client's page: %d", r.Status)
	}
}

// Every POST needs the session's csrf_token; without it nothing happens and the form comes back.
func TestCSRF(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(e.a, ownerEmail)
	id, _, _ := b.createConfidential(e, "Grade Sync")
	before, _ := e.client(e.a, id)
	other := e.signedIn(e.a, adminEmail) // another session's token is a wrong one
	otherToken := other.Get(e.appsURL(e.a, "/new")).CSRF(t)
	for _, token := range []string{"", "nope", otherToken} {
		create := b.Post(e.appsURL(e.a, ""), appForm{name: "Forged App", redirectURIs: callback, scopes: []string{"openid"}}.values(token))
		if create.Status != http.StatusForbidden || !strings.Contains(create.Body, formExpired) ||
			!strings.Contains(create.Body, `value="Forged App"`) {
			t.Errorf("create with token %q: %d\n%s", token, create.Status, create.Body)
		}
		for _, action := range []string{"rotate", "delete"} {
			form := url.Values{}
			if token != "" {
				form.Set("csrf_token", token)
			}
			r := b.Post(e.appsURL(e.a, "/"+id+"/"+action), form)
			if r.Status != http.StatusForbidden || !strings.Contains(r.Body, formExpired) {
				t.Errorf("%s with token %q: %d\n%s", action, token, r.Status, r.Body)
			}
		}
	}
	after, err := e.client(e.a, id)
	if err != nil || after.SecretHash != before.SecretHash {
		t.Errorf("the client changed: %v", err)
	}
	if list, _, _ := e.store.ListClients(e.ctx(e.a), "", storage.Page{}); len(list) != 1 {
		t.Errorf("%d clients", len(list))
	}
}

// Names are the operator's text and reach members' consent pages: always escaped.
func TestHostileNamesEscaped(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(e.a, ownerEmail)
	const hostile = `<script>alert("x")</script><img src=x onerror=alert(1)>`
	id := b.createPublic(e, hostile)
	for _, path := range []string{"", "/" + id, "/" + id + "/delete"} {
		r := b.Get(e.appsURL(e.a, path))
		if strings.Contains(r.Body, "<script") || strings.Contains(r.Body, "<img") || !strings.Contains(r.Body, "&lt;script&gt;") {
			t.Errorf("GET %s does not escape the name:\n%s", path, r.Body)
		}
	}
	// And in the form shown again after a refused attempt.
	r := b.create(e, appForm{name: hostile, redirectURIs: `javascript:alert(1)"><script>`, scopes: []string{"openid"}})
	if r.Status != http.StatusUnprocessableEntity || strings.Contains(r.Body, "<script") || strings.Contains(r.Body, "<img") {
		t.Errorf("refused form: %d\n%s", r.Status, r.Body)
	}
}

// Refused input: 422, the form again with a message per field and the input kept, nothing
// stored.
func TestValidation(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(e.a, ownerEmail)
	long := strings.Repeat("é", 101)
	var eleven []string
	for i := range 11 {
		eleven = append(eleven, "https://app.example/cb"+strings.Repeat("x", i))
	}
	for _, tc := range []struct {
		name string
		form appForm
		want []string
	}{
		{"no name", appForm{name: "  ", redirectURIs: callback, scopes: []string{"openid"}}, []string{"Give the application a name."}},
		{"long name", appForm{name: long, redirectURIs: callback, scopes: []string{"openid"}}, []string{"at most 100 characters"}},
		{"control character", appForm{name: "a\u0007b", redirectURIs: callback, scopes: []string{"openid"}}, []string{"control characters"}},
		{"no redirect URI", appForm{name: "A", redirectURIs: "\r\n ", scopes: []string{"openid"}}, []string{"at least one redirect URI"}},
		{"eleven redirect URIs", appForm{name: "A", redirectURIs: strings.Join(eleven, "\n"), scopes: []string{"openid"}}, []string{"at most 10 redirect URIs"}},
		{"plain http", appForm{name: "A", redirectURIs: "http://app.example/cb", scopes: []string{"openid"}}, []string{"plain http is only allowed for 127.0.0.1 and [::1]"}},
		{"localhost", appForm{name: "A", redirectURIs: "http://localhost:3000/cb", scopes: []string{"openid"}}, []string{"plain http is only allowed"}},
		{"custom scheme", appForm{name: "A", redirectURIs: "com.example.app:/cb", scopes: []string{"openid"}}, []string{"must use https"}},
		{"fragment", appForm{name: "A", redirectURIs: "https://app.example/cb#x", scopes: []string{"openid"}}, []string{"fragment"}},
		{"relative", appForm{name: "A", redirectURIs: "/cb", scopes: []string{"openid"}}, []string{"not an absolute URL"}},
		{"no scope", appForm{name: "A", redirectURIs: callback}, []string{"Pick at least one scope."}},
		{"operator scope", appForm{name: "A", redirectURIs: callback, scopes: []string{"openid", "courses:read"}}, []string{"Not available to a member client", "courses:read"}},
		{"everything", appForm{name: "", redirectURIs: "ftp://x", scopes: nil, confidential: true}, []string{"Give the application a name.", "must use https", "Pick at least one scope."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := b.create(e, tc.form)
			if r.Status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d\n%s", r.Status, r.Body)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Body, w) {
					t.Errorf("page lacks %q\n%s", w, r.Body)
				}
			}
			kept := formWith(t, r.Body, "name")
			if got := kept.Values.Get("name"); got != tc.form.name {
				t.Errorf("name not kept: %q", got)
			}
			if got := kept.Values.Get("redirect_uris"); strings.TrimSpace(got) != strings.TrimSpace(tc.form.redirectURIs) {
				t.Errorf("redirect URIs not kept: %q", got)
			}
			if tc.form.confidential != (kept.Values.Get("confidential") != "") {
				t.Error("the confidential box lost its state")
			}
		})
	}
	if list, _, _ := e.store.ListClients(e.ctx(e.a), "", storage.Page{}); len(list) != 0 {
		t.Errorf("refused input stored clients: %+v", list)
	}
}

// Another school's client, and an operator client of this school, are not this page's to show,
// change or delete.
func TestOtherClientsNotFound(t *testing.T) {
	e := newEnv(t)
	secret, hash, err := e.hasher.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	_ = secret
	theirs := storage.Client{ID: "pc_lumen_app", Kind: storage.ClientMember, Name: "Lumen App", SecretHash: hash,
		TokenEndpointAuthMethod: storage.AuthMethodSecretPost, RedirectURIs: []string{callback}, Scopes: []string{"openid"}}
	if _, err := e.store.CreateClient(e.ctx(e.b), theirs); err != nil {
		t.Fatal(err)
	}
	ops := storage.Client{ID: "ops-tool", Kind: storage.ClientOperator, Name: "Ops Tool", RedirectURIs: []string{callback}, Scopes: []string{"courses:read"}}
	if _, err := e.store.CreateClient(e.ctx(e.a), ops); err != nil {
		t.Fatal(err)
	}
	b := e.signedIn(e.a, ownerEmail) // an owner at both schools, signed in at A
	token := b.Get(e.appsURL(e.a, "")).CSRF(t)
	for _, id := range []string{theirs.ID, ops.ID} {
		for _, r := range []page{
			b.Get(e.appsURL(e.a, "/"+id)),
			b.Get(e.appsURL(e.a, "/"+id+"/rotate")),
			b.Get(e.appsURL(e.a, "/"+id+"/delete")),
			b.Post(e.appsURL(e.a, "/"+id+"/rotate"), url.Values{"csrf_token": {token}}),
			b.Post(e.appsURL(e.a, "/"+id+"/delete"), url.Values{"csrf_token": {token}}),
		} {
			if r.Status != http.StatusNotFound || !strings.Contains(r.Body, "Application not found") {
				t.Errorf("%s %s: %d, want the 404 page", r.Method, r.URL.Path, r.Status)
			}
		}
	}
	if c, err := e.client(e.b, theirs.ID); err != nil || c.SecretHash != hash {
		t.Errorf("school B's client changed: %v", err)
	}
	if _, err := e.client(e.a, ops.ID); err != nil {
		t.Errorf("the operator client is gone: %v", err)
	}
	if list := b.Get(e.appsURL(e.a, "")); strings.Contains(list.Body, ops.ID) || strings.Contains(list.Body, theirs.ID) {
		t.Error("the list shows a client that is not this school's member client")
	}
}

// The pages carry the strict page policy and are never cached or framed.
func TestPageHeaders(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(e.a, ownerEmail)
	id := b.createPublic(e, "Study Buddy")
	for _, path := range []string{"", "/new", "/" + id, "/" + id + "/delete"} {
		r := b.Get(e.appsURL(e.a, path))
		h := r.Header
		if r.Status != http.StatusOK || h.Get("Content-Security-Policy") != login.PagePolicy || h.Get("Cache-Control") != "no-store" ||
			h.Get("X-Frame-Options") != "DENY" || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s: %d %v", path, r.Status, h)
		}
		if strings.Contains(strings.ToLower(r.Body), "<script") {
			t.Errorf("GET %s carries a script", path)
		}
	}
}

// The list pages through the store's cursor; a cursor that is not one is a 400, not a 500.
func TestListPages(t *testing.T) {
	e := newEnv(t)
	for i := range 51 {
		c := storage.Client{ID: "pc_" + strings.Repeat("a", 3) + string(rune('A'+i/26)) + string(rune('a'+i%26)), Kind: storage.ClientMember,
			Name: "App", RedirectURIs: []string{callback}, Scopes: []string{"openid"}}
		if _, err := e.store.CreateClient(e.ctx(e.a), c); err != nil {
			t.Fatal(err)
		}
	}
	b := e.signedIn(e.a, ownerEmail)
	first := b.Get(e.appsURL(e.a, ""))
	if n := strings.Count(first.Body, `class="client-id"`); n != 50 {
		t.Errorf("first page: %d applications", n)
	}
	var next string
	for _, f := range strings.Split(first.Body, `href="`)[1:] {
		if link := f[:strings.Index(f, `"`)]; strings.Contains(link, "after=") {
			next = strings.ReplaceAll(link, "&amp;", "&")
		}
	}
	if next == "" {
		t.Fatal("no link to the next page")
	}
	second := b.Get(resolve(e.appsURL(e.a, ""), next))
	if n := strings.Count(second.Body, `class="client-id"`); second.Status != http.StatusOK || n != 1 {
		t.Errorf("second page: %d, %d applications", second.Status, n)
	}
	if r := b.Get(e.appsURL(e.a, "?after=garbage")); r.Status != http.StatusBadRequest {
		t.Errorf("bad cursor: %d", r.Status)
	}
}
