package securitytest

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/admin"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/mfa"
	"github.com/proctorhq/proctor/passkey"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
)

// crawl fetches the start pages with b and every same-origin page they link to (GET only), at
// most limit pages, and returns the HTML pages.
func crawl(b *servertest.Browser, s *servertest.School, limit int, start ...string) []*servertest.Response {
	seen := map[string]bool{}
	queue := slices.Clone(start)
	var pages []*servertest.Response
	for len(queue) > 0 && len(seen) < limit {
		u := queue[0]
		queue = queue[1:]
		if seen[u] || !strings.HasPrefix(u, s.Origin+"/") {
			continue
		}
		seen[u] = true
		r := b.Get(u)
		if r.Status == http.StatusSeeOther || r.Status == http.StatusFound {
			queue = append(queue, r.Location())
			continue
		}
		if !r.IsHTML() {
			continue
		}
		pages = append(pages, r)
		for _, l := range r.Links() {
			if u, err := url.Parse(l); err == nil {
				u.Fragment = ""
				queue = append(queue, u.String())
			}
		}
	}
	return pages
}

// formKey names what a form does: its action's path, with application ids replaced by {id}.
func formKey(f servertest.Form, ids []string) string {
	u, err := url.Parse(f.Action)
	if err != nil {
		return f.Action
	}
	p := u.Path
	for _, id := range ids {
		p = strings.ReplaceAll(p, "/"+url.PathEscape(id), "/{id}")
	}
	return p
}

// csrfCase is how one kind of form is checked: state reads what a refused POST must not
// change, and ok says whether the control POST (with the right token) did its work.
type csrfCase struct {
	order int // the control POSTs run in this order (sign-out last: it ends the session)
	state func() string
	ok    func(r *servertest.Response) bool
}

// TestCSRFEveryForm: every form on every page the server renders carries a CSRF token, and a
// POST of each kind of form without it, with an empty or a wrong one, with another session's or
// another school's token, is refused (403) and changes nothing; the same POST with its own token
// works. A form of a kind the suite has no case for fails the test.
func TestCSRFEveryForm(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		a := e.A
		op := e.Browser() // A's owner, also signed in at B (another school's session)
		op.SignIn(a, a.Owner.Email)
		op.SignIn(e.B, a.Owner.Email)
		public := createApp(t, op, a, "CSRF Public", false)
		conf := createApp(t, op, a, "CSRF Confidential", true)
		ids := []string{public, conf}
		all, _, err := e.Store.ListClients(e.Ctx(a), "", storage.Page{First: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range all {
			ids = append(ids, c.ID)
		}
		anon := e.Browser() // signed out; has visited B's sign-in page too
		anon.Get(e.B.URL(login.LoginPath))

		// The owner's account page lists a second session and a connected application, so that
		// it shows every one of its forms.
		second := e.Browser()
		second.SignIn(a, a.Owner.Email)
		e.Tokens(a, a.Owner.Email, scope.OpenID, scope.AccountRead)
		// Other sessions of the owner and of another member, whose tokens are tried below:
		// signed in before the owner has passkeys, which make the password alone not enough.
		other := e.Browser()
		other.SignIn(a, a.Owner.Email)
		otherMember := e.Browser()
		otherMember.SignIn(a, a.Student.Email)
		// Two passkeys, so that the passkey page shows its rename and remove forms (stored
		// directly: A is served at an address, where no browser makes one).
		for _, id := range []string{"csrf-key-1", "csrf-key-2"} {
			if _, err := e.Store.CreatePasskey(e.Ctx(a), factor.Passkey{MemberID: a.Owner.ID, CredentialID: []byte(id), PublicKey: []byte("k"), Name: id}); err != nil {
				t.Fatal(err)
			}
		}
		ownerPasskeys := func() []factor.Passkey {
			keys, err := e.Store.ListPasskeys(e.Ctx(a), a.Owner.ID)
			if err != nil {
				t.Fatal(err)
			}
			return keys
		}

		// Pages: the sign-in page, everything an operator reaches, the account page, the consent
		// page, error pages.
		pages := crawl(anon, a, 10, a.URL(login.LoginPath), a.URL(login.LogoutPath))
		pages = append(pages, crawl(op, a, 60, a.URL(login.DonePath), a.URL(login.LogoutPath), a.URL(admin.AppsPath),
			a.URL(admin.AppsPath+"/no-such-app"), a.URL(admin.AppsPath+"/"+public+"/rotate"), a.URL(account.AccountPath),
			a.URL(admin.EventsPath), a.URL(passkey.AccountPath))...)
		// A member's page and the confirmation pages of the actions that apply to A's student.
		student := strconv.FormatInt(a.Student.ID, 10)
		ids = append(ids, student)
		memberPages := []string{a.URL(admin.MembersPath + "/" + student)}
		for _, action := range []string{admin.ActionRoles, admin.ActionResetLink, admin.ActionUnlock, admin.ActionSignOut, admin.ActionRemove} {
			memberPages = append(memberPages, a.URL(admin.MembersPath+"/"+student+"/"+action))
		}
		pages = append(pages, crawl(op, a, len(memberPages)+1, memberPages...)...)
		authURL := servertest.AuthorizeURL(a, a.MemberClient, servertest.NewPKCE(), scope.OpenID, scope.AccountRead)
		pages = append(pages, op.Get(authURL))
		forbidden := e.Browser()
		forbidden.SignIn(a, a.Student.Email)
		pages = append(pages, forbidden.Get(a.URL(admin.AppsPath)), forbidden.Get(servertest.AuthorizeURL(a, a.OperatorClient, servertest.NewPKCE(), "courses:read")))

		// Every form carries a token; one representative of each kind is attacked below.
		forms := map[string]servertest.Form{}
		browsers := map[string]*servertest.Browser{}
		seen := 0
		for _, p := range pages {
			for _, f := range p.Forms() {
				seen++
				if u, err := url.Parse(f.Action); err == nil && f.Method == http.MethodGet && readOnlyForms[u.Path] {
					// A filter that only reads: nothing to forge, and no token in a URL.
					continue
				}
				if f.Method != http.MethodPost {
					t.Errorf("form to %s on %s uses method %q, want POST", f.Action, p.URL, f.Method)
				}
				if f.Values.Get(login.CSRFField) == "" {
					t.Errorf("form to %s on %s carries no %s", f.Action, p.URL, login.CSRFField)
				}
				k := formKey(f, ids)
				if _, ok := forms[k]; !ok {
					forms[k] = f
					browsers[k] = op
					if strings.HasPrefix(f.Action, a.URL(login.LoginPath)) {
						browsers[k] = anon
					}
				}
			}
		}

		t.Logf("%d forms on %d pages, %d kinds", seen, len(pages), len(forms))

		// Tokens of other sessions and of the other school.
		sessionTokens := map[string]string{
			"another session of the same member": other.SessionCSRF(a),
			"another member's session":           otherMember.SessionCSRF(a),
			"the same member's session at B":     op.SessionCSRF(e.B),
		}
		loginTokens := map[string]string{
			"another browser's sign-in form": e.Browser().Get(a.URL(login.LoginPath)).CSRF(t),
			"this browser's form at B":       anon.Get(e.B.URL(login.LoginPath)).CSRF(t),
		}

		client := func(id string) storage.Client {
			c, err := e.Store.GetClient(e.Ctx(a), id)
			if err != nil {
				return storage.Client{}
			}
			return c
		}
		clientCount := func() string {
			cs, _, err := e.Store.ListClients(e.Ctx(a), storage.ClientMember, storage.Page{First: 1000})
			if err != nil {
				t.Fatal(err)
			}
			return strings.Repeat("x", len(cs))
		}
		owner := func() storage.Member {
			m, err := e.Store.GetMember(e.Ctx(a), a.Owner.ID)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		ownerHash := owner().PasswordHash
		ownerSessions := func() int {
			ss, err := e.Store.ListMemberSessions(e.Ctx(a), a.Owner.ID, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			return len(ss)
		}
		sessionsBefore := ownerSessions()
		connectedApps := func() int {
			apps, err := e.Store.ListConnectedApps(e.Ctx(a), a.Owner.ID, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			return len(apps)
		}
		studentRoles := func() []storage.Role {
			rs, err := e.Store.GetRoles(e.Ctx(a), a.Student.ID)
			if err != nil {
				t.Fatal(err)
			}
			return rs
		}
		studentSessions := func() int {
			ss, err := e.Store.ListMemberSessions(e.Ctx(a), a.Student.ID, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			return len(ss)
		}
		unlockedAt := func() time.Time {
			at, err := e.Store.AccountUnlockedAt(t.Context(), login.AccountDigest(a.Student.Email))
			if err != nil {
				t.Fatal(err)
			}
			return at
		}
		cases := map[string]csrfCase{
			login.LoginPath: {order: 0,
				state: func() string {
					return strconv.FormatBool(anon.SignedIn(a)) + "|" + anon.Cookie(a, servertest.SessionCookie(a))
				},
				ok: func(r *servertest.Response) bool { return r.Status == http.StatusSeeOther && anon.SignedIn(a) }},
			endpoint.Authorize: {order: 1,
				state: func() string { return "" },
				ok: func(r *servertest.Response) bool {
					return r.Status == http.StatusSeeOther && strings.Contains(r.Header.Get("Location"), "code=")
				}},
			admin.AppsPath: {order: 2, state: clientCount,
				ok: func(r *servertest.Response) bool { return r.Status == http.StatusSeeOther || r.Status == http.StatusOK }},
			admin.AppsPath + "/{id}/rotate": {order: 3,
				state: func() string { return client(conf).SecretHash },
				ok: func(r *servertest.Response) bool {
					return r.Status == http.StatusOK && elementText(r.Body, "client-secret") != ""
				}},
			admin.AppsPath + "/{id}/delete": {order: 4,
				state: func() string { return client(public).ID + client(conf).ID },
				ok:    func(r *servertest.Response) bool { return r.Status == http.StatusSeeOther }},
			// A refused request queues nothing; the form's own token queues one request
			// (whatever the address, the answer is the same page). Before the sign-in, which
			// replaces the browser's sign-in form token.
			account.ForgotPath: {order: -1,
				state: func() string { return strconv.Itoa(outboxEntries(t, e.Database)) },
				ok: func(r *servertest.Response) bool {
					return r.Status == http.StatusOK && outboxEntries(t, e.Database) == 1
				}},
			account.ProfilePath: {order: 5,
				state: func() string { return owner().Name },
				ok: func(r *servertest.Response) bool {
					return r.Status == http.StatusSeeOther && owner().Name == "Renamed By Form"
				}},
			account.EmailPath: {order: 6,
				state: func() string { return strconv.Itoa(outboxEntries(t, e.Database)) },
				ok: func(r *servertest.Response) bool {
					return r.Status == http.StatusSeeOther && outboxEntries(t, e.Database) == 2
				}},
			account.AppRemovePath: {order: 7,
				state: func() string { return strconv.Itoa(connectedApps()) },
				ok:    func(r *servertest.Response) bool { return r.Status == http.StatusSeeOther && connectedApps() == 0 }},
			account.SessionEndPath: {order: 8,
				state: func() string { return strconv.Itoa(ownerSessions()) },
				ok: func(r *servertest.Response) bool {
					return r.Status == http.StatusSeeOther && ownerSessions() == sessionsBefore-1
				}},
			account.SessionEndOthersPath: {order: 9,
				state: func() string { return strconv.Itoa(ownerSessions()) },
				ok:    func(r *servertest.Response) bool { return r.Status == http.StatusSeeOther && ownerSessions() == 1 }},
			passkey.RenamePath: {order: 5,
				state: func() string { return ownerPasskeys()[0].Name },
				ok: func(r *servertest.Response) bool {
					return r.Status == http.StatusSeeOther && ownerPasskeys()[0].Name == "Renamed By Form"
				}},
			// Before the password changes: removing asks for it.
			passkey.RemovePath: {order: 9,
				state: func() string { return strconv.Itoa(len(ownerPasskeys())) },
				ok:    func(r *servertest.Response) bool { return r.Status == http.StatusSeeOther && len(ownerPasskeys()) == 1 }},
			// Last but the sign-out: a new password ends the owner's other sessions.
			account.PasswordPath: {order: 10,
				state: func() string { return owner().PasswordHash },
				ok: func(r *servertest.Response) bool {
					return r.Status == http.StatusSeeOther && owner().PasswordHash != ownerHash
				}},
			// The enrolment form: a code it cannot check is refused with the form again, and
			// TOTP stays off.
			mfa.TOTPPath: {order: 11,
				state: func() string {
					sums, err := e.Store.FactorSummaries(e.Ctx(a), []int64{a.Owner.ID})
					if err != nil {
						t.Fatal(err)
					}
					return strconv.FormatBool(sums[a.Owner.ID].TOTP)
				},
				ok: func(r *servertest.Response) bool {
					return r.Status == http.StatusOK && strings.Contains(r.Body, `id="totp-message"`)
				}},
			// The member pages, on A's student: last but the sign-out, so that the outbox
			// counts above are not disturbed.
			admin.MembersPath + "/{id}/" + admin.ActionRoles: {order: 12,
				state: func() string { return fmt.Sprint(studentRoles()) },
				ok: func(r *servertest.Response) bool {
					return r.Status == http.StatusSeeOther && fmt.Sprint(studentRoles()) == "[lecturer]"
				}},
			admin.MembersPath + "/{id}/" + admin.ActionResetLink: {order: 13,
				state: func() string { return strconv.Itoa(outboxEntries(t, e.Database)) },
				ok: func(r *servertest.Response) bool {
					return r.Status == http.StatusSeeOther && outboxEntries(t, e.Database) == 3
				}},
			admin.MembersPath + "/{id}/" + admin.ActionUnlock: {order: 14,
				state: func() string { return unlockedAt().String() },
				ok:    func(r *servertest.Response) bool { return r.Status == http.StatusSeeOther && !unlockedAt().IsZero() }},
			admin.MembersPath + "/{id}/" + admin.ActionSignOut: {order: 15,
				state: func() string { return strconv.Itoa(studentSessions()) },
				ok:    func(r *servertest.Response) bool { return r.Status == http.StatusSeeOther && studentSessions() == 0 }},
			admin.MembersPath + "/{id}/" + admin.ActionRemove: {order: 16,
				state: func() string { return fmt.Sprint(studentRoles()) },
				ok:    func(r *servertest.Response) bool { return r.Status == http.StatusSeeOther && len(studentRoles()) == 0 }},
			login.LogoutPath: {order: 20,
				state: func() string { return strconv.FormatBool(op.SignedIn(a)) },
				ok:    func(r *servertest.Response) bool { return r.Status == http.StatusOK && !op.SignedIn(a) }},
		}

		var keys []string
		for k := range forms {
			if _, ok := cases[k]; !ok {
				t.Errorf("a form posting to %s (%s) has no CSRF case in the suite", k, forms[k].Action)
				continue
			}
			keys = append(keys, k)
		}
		for k := range cases {
			if _, ok := forms[k]; !ok {
				t.Errorf("no page showed a form posting to %s", k)
			}
		}
		sort.Slice(keys, func(i, j int) bool { return cases[keys[i]].order < cases[keys[j]].order })

		for _, k := range keys {
			f, b, c := forms[k], browsers[k], cases[k]
			t.Run(k, func(t *testing.T) {
				own := f.Values.Get(login.CSRFField)
				button := ""
				if len(f.Buttons) > 0 {
					button = f.Buttons[0].Name // consent: "decision", approve first
				}
				fill := func(v url.Values) url.Values {
					if k == login.LoginPath {
						v.Set("email", a.Student.Email)
						v.Set("password", servertest.Password)
					}
					switch k {
					case account.ForgotPath:
						v.Set("email", a.Student.Email)
					case account.ProfilePath:
						v.Set("name", "Renamed By Form")
					case account.EmailPath:
						v.Set("email", "moved-by-form@example.com")
						v.Set("current_password", servertest.Password)
					case passkey.RenamePath:
						v.Set("name", "Renamed By Form")
					case passkey.RemovePath:
						v.Set("current_password", servertest.Password)
					case account.PasswordPath:
						v.Set("current_password", servertest.Password)
						v.Set("new_password", "a new passphrase by form")
						v.Set("repeat_password", "a new passphrase by form")
					}
					if k == admin.MembersPath+"/{id}/"+admin.ActionRoles {
						v["role"] = []string{string(storage.RoleLecturer)}
					}
					if k == admin.AppsPath {
						v.Set("name", "Forged")
						v.Set("redirect_uris", "http://127.0.0.1/forged")
						v.Set("scope", scope.OpenID)
					}
					return v
				}
				variants := map[string]func(url.Values){
					"no token":    func(v url.Values) { v.Del(login.CSRFField) },
					"empty token": func(v url.Values) { v.Set(login.CSRFField, "") },
					"wrong token": func(v url.Values) { v.Set(login.CSRFField, flipFirst(own)) },
					"a random token": func(v url.Values) {
						v.Set(login.CSRFField, "dGhpcyBpcyBub3QgYSB0b2tlbiBvZiB0aGlzIHNlc3Npb24")
					},
					"two tokens, the wrong one first": func(v url.Values) { v[login.CSRFField] = []string{"wrong", own} },
				}
				others := sessionTokens
				if k == login.LoginPath || k == account.ForgotPath {
					others = loginTokens
				}
				for name, tok := range others {
					variants[name] = func(v url.Values) { v.Set(login.CSRFField, tok) }
				}
				before := c.state()
				for name, mutate := range variants {
					v := fill(f.Submission(button))
					mutate(v)
					r := b.Post(f.Action, v)
					if r.Status != http.StatusForbidden {
						t.Errorf("%s: POST %s: %d (Location %q), want 403", name, k, r.Status, r.Header.Get("Location"))
					}
					if strings.Contains(r.Header.Get("Location"), "code=") {
						t.Errorf("%s: a code was issued: %s", name, r.Header.Get("Location"))
					}
					if after := c.state(); after != before {
						t.Errorf("%s: POST %s changed the state from %q to %q", name, k, before, after)
					}
				}
				// The control: the form as the page gave it works.
				if r := b.Post(f.Action, fill(f.Submission(button))); !c.ok(r) {
					t.Errorf("POST %s with its own token: %d (Location %q)\n%.400s", k, r.Status, r.Header.Get("Location"), r.Body)
				} else if r.IsHTML() {
					for _, g := range r.Forms() {
						if g.Values.Get(login.CSRFField) == "" {
							t.Errorf("the answer to POST %s has a form to %s without a token", k, g.Action)
						}
					}
				}
			})
		}
	})
}

// outboxEntries counts the mail outbox's entries, read with a connection of the test's own
// (the outbox is the server's; nothing else in this suite sends mail).
func outboxEntries(t *testing.T, cfg gormstore.Config) int {
	t.Helper()
	db := openSQL(t, cfg)
	defer db.Close()
	var n int
	if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM mail_outbox`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// flipFirst returns s with its first character changed.
func flipFirst(s string) string {
	if s == "" {
		return "A"
	}
	if s[0] == 'A' {
		return "B" + s[1:]
	}
	return "A" + s[1:]
}

// readOnlyForms are the paths of GET forms that change nothing (a page's filters): they carry
// no CSRF token, which would otherwise end up in URLs, and are not attacked. Every other form
// must be a POST with the session's token.
var readOnlyForms = map[string]bool{
	admin.EventsPath:  true,
	admin.MembersPath: true, // the member list's search
}
