// Package servertest builds a whole Proctor for tests: server.New's public and internal
// listeners, served by the server's own http.Server (Server.Serve, so the configured timeouts
// and body limit apply), on a real store (storetest.Open: SQLite, or PostgreSQL when
// PROCTOR_TEST_POSTGRES_DSN is set), with schools, members, clients and a captured log.
//
// What New builds:
//
//   - school A ("north", Northwind) at http://127.0.0.1:<port>, with MCP connections and ID
//     tokens on;
//   - school B ("lumen", Lumen) at http://localhost:<port>, with MCP connections on and ID
//     tokens off; A and B share the public listener and are told apart by Host, as in
//     production;
//   - with Options.HTTPS, school C ("secure", Securus) at https://127.0.0.1:<other port>, served
//     over TLS by an httptest server in front of the same public handler, so that cookies and
//     headers can be checked on an https origin;
//   - at every school an owner and a student (owner-<subdomain>@example.com,
//     student-<subdomain>@example.com, roles at that school only) and one member who is a student
//     at every school (Env.Shared); every member's password is Password, hashed with cheap
//     argon2id parameters;
//   - at every school a public member client (<subdomain>-member-app: identity and account
//     scopes) and a public operator client (<subdomain>-operator-app: openid and every operator
//     scope), each with the redirect URI http://127.0.0.1/<subdomain>/callback;
//   - the internal listener with an API key (Env.APIKey), so POST /internal/introspect is on;
//   - the server's log as JSON lines in a buffer (Env.Log), every level, so tests can scan it.
//
// Helpers: Env.Browser is a member's browser (cookie jar, redirects not followed) that signs in
// through the login form, answers the consent page and tells whether its session at a school is
// live and that session's CSRF token (SignedIn, SessionCSRF: the signed-in page, /login/done);
// Env.Tokens runs a whole authorization (sign-in, consent, code exchange with PKCE) for given
// scopes; the OAuth helpers Env has (Code, Exchange, Refresh, TokenRequest, TokensFor, Revoke,
// Userinfo, and Send for any other request without cookies) run a client's part step by step;
// ExchangeForm is Exchange's form for a test that changes it. Approving checks what every client
// may: the redirect carries the code, the issuer (RFC 9207) and the state. Env.Client sends single
// requests; Env.Bearer sends one with an access token (SendBearer, which resourcetest's Send
// also uses, with any client). Every response any of them receives is recorded
// (Env.Responses), so a test can check headers and cookies across everything a flow touched.
// A page's forms (Response.Forms, FormWith, Browser.Submit) are read by bench/flow's parser,
// the one the load command posts with: Form, Button and ParseForms here are its.
// PostOffice sends a store's outbox over SMTP to a mailbox of the test and hands over what arrived.
//
// Options change the server file and the school files before anything is built, so a test can
// shorten timeouts, lower the body limit, add vendor integrations or a Client ID Metadata
// Document resolver.
//
// The schools, the store, the cheap password and the log come from package schools (below this
// one), which the tests of packages that server imports use directly. For those tests this package
// also has Public, the whole server on schools.New's schools behind one httptest server (NewPublic
// builds both when the server needs nothing else), MintToken, an access token stored as the
// authorization server stores one, Pages, a page browser for a server the test composes itself
// (signing in, Consent, Approve, SignedIn and SessionCSRF as Browser does them, ChooseLanguage with
// the pages' switcher), NewLogin, the sign-in pages such a server is built on, composed as the
// server composes them (the request's language on every request, the limiter, the security event
// recorder and the log its own handlers share), and NewOAuth, the same OAuth helpers Env has, for
// such a server: its tests keep no copies of them. The helpers take a Site, New's *School or
// schools.New's *school.School alike.
package servertest
