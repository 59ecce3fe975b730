package admin_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/proctorhq/proctor/admin"
	"github.com/proctorhq/proctor/client"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
)

// env is a whole Proctor (server.New's public handler on a real SQLite store) behind an
// httptest server: school A at 127.0.0.1:<port> shows the OAuth applications pages, school B
// at localhost:<port> does not.
type env struct {
	t      *testing.T
	store  *gormstore.Store
	hasher *client.SecretHasher
	secret config.Secret
	a, b   *school.School
	// oauth runs the OAuth client's part: authorizations, token requests, UserInfo.
	oauth *servertest.OAuth
}

const (
	ownerEmail    = "owner@example.com" // owner at A and at B
	adminEmail    = "admin@example.com"
	lecturerEmail = "lecturer@example.com"
	studentEmail  = "student@example.com"
	outsiderEmail = "outsider@example.com" // no role at A
	memberPass    = schools.Password
	callback      = "http://127.0.0.1/callback"
)

func newEnv(t *testing.T) *env {
	t.Helper()
	sch := servertest.NewPublic(t, schools.Options{Files: func(port string) []config.School {
		files := schools.Files(port)
		files[0].Features = config.Features{MCPConnections: true}
		return files
	}})
	e := &env{t: t, store: sch.Store, a: sch.A, b: sch.B,
		hasher: client.NewSecretHasher(schools.Secret), secret: schools.Secret, oauth: servertest.NewOAuth(t)}

	for _, m := range []struct {
		email string
		a, b  storage.Role
	}{
		{ownerEmail, storage.RoleOwner, storage.RoleOwner},
		{adminEmail, storage.RoleAdmin, ""},
		{lecturerEmail, storage.RoleLecturer, ""},
		{studentEmail, storage.RoleStudent, ""},
		{outsiderEmail, "", storage.RoleStudent},
	} {
		var at []schools.MemberOption
		for tn, role := range map[*school.School]storage.Role{e.a: m.a, e.b: m.b} {
			if role != "" {
				at = append(at, schools.At(tn, role))
			}
		}
		schools.Member(t, e.store, m.email, "Name of "+m.email, at...)
	}
	return e
}

func (e *env) ctx(t *school.School) context.Context { return school.NewContext(e.t.Context(), t) }

// appsURL is the list's URL at school t.
func (e *env) appsURL(t *school.School, suffix string) string {
	return t.Origin + admin.AppsPath + suffix
}

// client reads a client of school t from the store.
func (e *env) client(t *school.School, id string) (storage.Client, error) {
	return e.store.GetClient(e.ctx(t), id)
}

// browser is a member's browser: cookies, no automatic redirects.
type browser struct {
	*servertest.Pages
	t *testing.T
}

func (e *env) browser() *browser { return &browser{Pages: servertest.NewPages(e.t, nil), t: e.t} }

// page is one response, its body read.
type page = *servertest.Response

// signedIn returns a browser signed in at t as email.
func (e *env) signedIn(t *school.School, email string) *browser {
	e.t.Helper()
	b := e.browser()
	b.SignIn(t, email)
	return b
}

// formWith returns the first form having an input named field.
func formWith(t *testing.T, body, field string) servertest.Form {
	t.Helper()
	f, ok := (&servertest.Response{Body: body}).FormWith(field)
	if !ok {
		t.Fatalf("no form with %q on the page:\n%s", field, body)
	}
	return f
}

// textOf returns the text of the element with the given id.
func textOf(t *testing.T, body, id string) string {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(body))
	depth := 0
	var text strings.Builder
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			t.Fatalf("no element #%s on the page:\n%s", id, body)
		}
		tok := z.Token()
		switch {
		case depth > 0 && tt == html.TextToken:
			text.WriteString(tok.Data)
		case depth > 0 && tt == html.StartTagToken:
			depth++
		case depth > 0 && tt == html.EndTagToken:
			if depth--; depth == 0 {
				return strings.TrimSpace(text.String())
			}
		case tt == html.StartTagToken:
			for _, a := range tok.Attr {
				if a.Key == "id" && a.Val == id {
					depth = 1
				}
			}
		}
	}
}

func resolve(base, ref string) string {
	b, _ := url.Parse(base)
	r, _ := url.Parse(ref)
	return b.ResolveReference(r).String()
}

// appScopes are the scopes createPublic and createConfidential give an application, and those
// its authorizations ask for.
var appScopes = []string{"openid", "account:read"}

// app is school A's application id as the OAuth helpers take a client: redirected to callback,
// authenticated with secret ("" sends none: a public client, or a confidential one without it).
func app(id, secret string) servertest.Client {
	return servertest.Client{ID: id, RedirectURI: callback, Secret: secret}
}

// tokens runs a whole authorization at school A for application c as the student.
func (e *env) tokens(c servertest.Client) servertest.Tokens {
	e.t.Helper()
	return e.oauth.TokensFor(e.a, studentEmail, c, appScopes...)
}

// appForm is what the creation form posts.
type appForm struct {
	name         string
	redirectURIs string
	scopes       []string
	confidential bool
}

func (f appForm) values(csrfToken string) url.Values {
	v := url.Values{"csrf_token": {csrfToken}, "name": {f.name}, "redirect_uris": {f.redirectURIs}, "scope": f.scopes}
	if f.confidential {
		v.Set("confidential", "yes")
	}
	return v
}

// create fills the creation form at school A the way a browser does (token from the form)
// and returns the answer.
func (b *browser) create(e *env, f appForm) page {
	b.t.Helper()
	form := b.Get(e.appsURL(e.a, "/new"))
	if form.Status != http.StatusOK {
		b.t.Fatalf("creation form: status %d\n%s", form.Status, form.Body)
	}
	return b.Post(e.appsURL(e.a, ""), f.values(form.CSRF(b.t)))
}

// createPublic creates a public client through the pages and returns its id.
func (b *browser) createPublic(e *env, name string) string {
	b.t.Helper()
	r := b.create(e, appForm{name: name, redirectURIs: callback, scopes: appScopes})
	if r.Status != http.StatusSeeOther {
		b.t.Fatalf("create public: status %d\n%s", r.Status, r.Body)
	}
	show := b.Get(resolve(e.appsURL(e.a, ""), r.Header.Get("Location")))
	if show.Status != http.StatusOK {
		b.t.Fatalf("application page: status %d\n%s", show.Status, show.Body)
	}
	return textOf(b.t, show.Body, "client-id")
}

// createConfidential creates a confidential client through the pages and returns its id and
// the secret the answer showed.
func (b *browser) createConfidential(e *env, name string) (id, secret string, r page) {
	b.t.Helper()
	r = b.create(e, appForm{name: name, redirectURIs: callback, scopes: appScopes, confidential: true})
	if r.Status != http.StatusOK {
		b.t.Fatalf("create confidential: status %d\n%s", r.Status, r.Body)
	}
	return textOf(b.t, r.Body, "client-id"), textOf(b.t, r.Body, "client-secret"), r
}
