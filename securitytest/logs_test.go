package securitytest

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/admin"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage/gormstore"
)

// secrets collects the values that must never be logged or stored in the clear, by name.
type secrets map[string]string

func (s secrets) add(name, v string) {
	if len(v) >= 8 {
		s[name] = v
	}
}

// addToken adds a token and, for fosite's "key.signature" tokens, its random key part (which,
// with the HMAC key, is the token).
func (s secrets) addToken(name, v string) {
	s.add(name, v)
	if key, _, ok := strings.Cut(v, "."); ok && !strings.HasPrefix(name, "id token") {
		s.add(name+" (key part)", key)
	}
}

// addBytes adds the encodings a byte string could be logged in.
func (s secrets) addBytes(name string, b []byte) {
	s.add(name+" (raw)", string(b))
	if j, err := json.Marshal(string(b)); err == nil {
		s.add(name+" (JSON-escaped)", strings.Trim(string(j), `"`))
	}
	s.add(name+" (hex)", hex.EncodeToString(b))
	s.add(name+" (base64)", base64.StdEncoding.EncodeToString(b))
	s.add(name+" (base64 raw)", base64.RawStdEncoding.EncodeToString(b))
	s.add(name+" (base64url)", base64.URLEncoding.EncodeToString(b))
	s.add(name+" (base64url raw)", base64.RawURLEncoding.EncodeToString(b))
}

// TestSecretsNeverLoggedOrStored runs the flows that handle secrets (sign-in with a right and a
// wrong password, consent, code exchange with PKCE for a public and a confidential client,
// refresh, revocation, the operator pages' secret issue and rotation, a wrong client secret,
// registration, introspection and the profiles with a right and a wrong API key) and then scans
// every line the server logged, at every level, and every value of every table of the database,
// for every token, code, verifier, refresh token, client secret, password, API key, cookie, CSRF
// token and the system secret and its derived keys in their usual encodings. The database may
// hold tokens, codes, secrets and session IDs only as keyed hashes.
func TestSecretsNeverLoggedOrStored(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		a := e.A
		sec := secrets{}
		sec.add("password", servertest.Password)
		sec.addBytes("system secret", e.Config.Secret)
		for _, purpose := range []string{"token hmac", "client secrets", "login session id", "csrf token"} {
			sec.addBytes("derived key "+purpose, e.Config.Secret.Derive(purpose))
		}
		sec.add("internal API key", e.APIKey)

		// Sign-in: a wrong password, then the right one.
		const wrongPassword = "Tr0ub4dor&3-wrong-password"
		sec.add("wrong password", wrongPassword)
		b := e.Browser()
		b.TrySignIn(a, a.Student.Email, wrongPassword)
		sec.add("login CSRF cookie", b.Cookie(a, servertest.LoginCSRFCookie(a)))
		sec.add("login CSRF token", b.Get(a.URL(login.LoginPath)).CSRF(t))
		b.SignIn(a, a.Student.Email)
		sec.add("session cookie", b.Cookie(a, servertest.SessionCookie(a)))
		sec.add("session CSRF token", b.SessionCSRF(a))

		// A public client: consent, exchange, ID token, use, refresh, revoke.
		p := servertest.NewPKCE()
		sec.add("code verifier", p.Verifier)
		code := b.Approve(servertest.AuthorizeURL(a, a.MemberClient, p, scope.OpenID, scope.Profile, scope.Email, scope.AccountRead))
		sec.addToken("authorization code", code)
		r, tr := e.Exchange(a, a.MemberClient, code, p)
		if r.Status != http.StatusOK || tr.IDToken == "" {
			t.Fatalf("exchange: %d %s", r.Status, r.Body)
		}
		sec.addToken("access token", tr.AccessToken)
		sec.addToken("refresh token", tr.RefreshToken)
		sec.addToken("id token", tr.IDToken)
		e.Exchange(a, a.MemberClient, code, p) // a replayed code
		e.Userinfo(a, tr.AccessToken)
		e.Bearer(http.MethodPost, a.URL(endpoint.MemberGraphQL), tr.AccessToken, "application/json", `{"query":"{ viewer { id } }"}`)
		_, refreshed := e.Refresh(a, a.MemberClient, tr.RefreshToken)
		sec.addToken("refreshed access token", refreshed.AccessToken)
		sec.addToken("refreshed refresh token", refreshed.RefreshToken)
		e.Userinfo(a, refreshed.AccessToken)
		e.Refresh(a, a.MemberClient, tr.RefreshToken) // reuse of a replaced refresh token
		e.Revoke(a, a.MemberClient, refreshed.RefreshToken)
		e.Userinfo(a, refreshed.AccessToken) // revoked

		// A confidential client made on the operator pages: its secret, a rotation, a wrong secret.
		op := e.Browser()
		op.SignIn(a, a.Owner.Email)
		sec.add("operator session cookie", op.Cookie(a, servertest.SessionCookie(a)))
		form, _ := op.Get(a.URL(admin.NewAppPath)).FormWith("redirect_uris")
		redirect := "http://127.0.0.1/north/confidential/callback"
		form.Values.Set("name", "Log Probe")
		form.Values.Set("redirect_uris", redirect)
		form.Values["scope"] = []string{scope.OpenID, scope.AccountRead}
		form.Values.Set("confidential", "yes")
		created := op.Submit(form, "")
		conf := servertest.Client{ID: elementText(created.Body, "client-id"), RedirectURI: redirect, Secret: elementText(created.Body, "client-secret")}
		if conf.ID == "" || conf.Secret == "" {
			t.Fatalf("confidential application: %d\n%s", created.Status, created.Body)
		}
		sec.add("client secret", conf.Secret)
		p2 := servertest.NewPKCE()
		code2 := b.Approve(servertest.AuthorizeURL(a, conf, p2, scope.OpenID, scope.AccountRead))
		sec.addToken("confidential code", code2)
		_, tr2 := e.Exchange(a, conf, code2, p2)
		if tr2.AccessToken == "" {
			t.Fatalf("confidential exchange: %+v", tr2)
		}
		sec.addToken("confidential access token", tr2.AccessToken)
		sec.addToken("confidential refresh token", tr2.RefreshToken)
		confirm, _ := op.Get(a.URL(admin.AppsPath + "/" + url.PathEscape(conf.ID) + "/rotate")).FormWith(login.CSRFField)
		rotated := op.Submit(confirm, "")
		newSecret := elementText(rotated.Body, "client-secret")
		if newSecret == "" || newSecret == conf.Secret {
			t.Fatalf("rotation: %d\n%s", rotated.Status, rotated.Body)
		}
		sec.add("rotated client secret", newSecret)
		if r, _ := e.Refresh(a, conf, tr2.RefreshToken); r.Status == http.StatusOK {
			t.Error("the replaced client secret still works")
		}
		conf.Secret = newSecret
		_, tr3 := e.Refresh(a, conf, tr2.RefreshToken)
		sec.addToken("refresh with the new secret: access token", tr3.AccessToken)
		sec.addToken("refresh with the new secret: refresh token", tr3.RefreshToken)
		e.Revoke(a, conf, tr3.AccessToken)

		// Registration, introspection and the profiles, with the right key and a wrong one.
		e.Bearer(http.MethodPost, a.URL(endpoint.Register), "", "application/json",
			`{"client_name":"Course Copilot","redirect_uris":["http://127.0.0.1:4567/copilot/callback"]}`)
		member := e.Tokens(a, a.Student.Email, scope.OpenID, scope.AccountRead)
		sec.addToken("introspected access token", member.AccessToken)
		sec.addToken("introspected refresh token", member.RefreshToken)
		e.Introspect(a, member.AccessToken)
		e.Introspect(a, member.RefreshToken)
		wrongKey := "wrong-" + e.APIKey[6:]
		sec.add("wrong API key", wrongKey)
		e.Send(http.MethodPost, e.InternalURL+resource.IntrospectPath, url.Values{"token": {member.AccessToken}, "school_id": {a.SchoolIDString()}},
			"Authorization", "Bearer "+wrongKey)
		e.Send(http.MethodGet, e.InternalURL+"/debug/pprof/", nil, "Authorization", "Bearer "+e.APIKey)
		e.Send(http.MethodGet, e.InternalURL+"/debug/pprof/", nil, "Authorization", "Bearer "+wrongKey)

		// Sign out, then scan.
		logout, _ := b.Get(a.URL(login.LogoutPath)).FormWith(login.CSRFField)
		b.Submit(logout, "")

		lines := e.Log.Lines()
		if len(lines) < 30 || !strings.Contains(e.Log.String(), `"msg":"signed in"`) {
			t.Fatalf("the log holds %d lines; the flows did not run through the server", len(lines))
		}
		sec.findIn(t, "the log", lines)
		stored := storedValues(t, e.Database)
		sec.findIn(t, "the database", stored)
		// The scan must have read where a leak would be: the keys of tokens and sessions.
		for _, column := range []string{
			"oauth_token_pairs.access_signature", "oauth_token_pairs.data", "oauth_authorization_codes.signature",
			"login_sessions.id", "oauth_clients.secret_hash", "members.password_hash",
		} {
			if !slices.ContainsFunc(stored, func(v string) bool { return strings.HasPrefix(v, column+": ") }) {
				t.Errorf("no value of %s was read", column)
			}
		}
		t.Logf("%d log lines and %d stored values scanned for %d secrets", len(lines), len(stored), len(sec))
	})
}

// findIn reports every secret, plain or URL-escaped, that one of texts holds.
func (s secrets) findIn(t *testing.T, where string, texts []string) {
	t.Helper()
	for name, v := range s {
		variants := map[string]bool{v: true, url.QueryEscape(v): true, url.PathEscape(v): true}
		for _, text := range texts {
			for variant := range variants {
				if strings.Contains(text, variant) {
					t.Errorf("%s holds the %s:\n%.400s", where, name, text)
				}
			}
		}
	}
}

// storedValues reads every value of every table of the database, over a connection of its own,
// as "table.column: value".
func storedValues(t *testing.T, cfg gormstore.Config) []string {
	t.Helper()
	list := `SELECT name FROM sqlite_master WHERE type = 'table'`
	if cfg.Driver == gormstore.DriverPostgres {
		list = `SELECT table_name FROM information_schema.tables
WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
	}
	db := openSQL(t, cfg)
	defer db.Close()
	var tables []string
	rows, err := db.QueryContext(t.Context(), list)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, table := range tables {
		rows, err := db.QueryContext(t.Context(), `SELECT * FROM "`+table+`"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		values := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range values {
			ptrs[i] = &values[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range values {
				var text string
				switch v := v.(type) {
				case string:
					text = v
				case []byte:
					text = string(v)
				default:
					continue
				}
				out = append(out, table+"."+cols[i]+": "+text)
			}
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if len(tables) < 10 || len(out) == 0 {
		t.Fatalf("read %d values from %d tables; not the server's database", len(out), len(tables))
	}
	return out
}
