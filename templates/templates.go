package templates

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"html/template"
	"io"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/i18n"
)

//go:embed html/*.html
var pageFiles embed.FS

//go:embed static/proctor.css
var stylesheet []byte

// Set is every page, parsed and checked, in every language. It is safe for concurrent use.
type Set struct {
	// pages holds each page file's template per language tag: the templates of one page differ
	// only in the catalogue their "t" function reads.
	pages   map[string]map[string]*template.Template
	mail    map[string]map[string]mailTemplates
	catalog *i18n.Catalog
	cssPath string
}

// Files of the pages of the sign-in flow and of the operator's application pages.
const (
	loginFile           = "login.html"
	consentFile         = "consent.html"
	errorPageFile       = "error.html"
	signedInFile        = "signed_in.html"
	signedOutFile       = "signed_out.html"
	logoutFile          = "logout.html"
	oauthAppsFile       = "oauth_apps.html"
	oauthAppNewFile     = "oauth_app_new.html"
	oauthAppFile        = "oauth_app.html"
	oauthAppSecretFile  = "oauth_app_secret.html"
	oauthAppConfirmFile = "oauth_app_confirm.html"
)

// namedPage is one page file and the sample it is checked with at start-up. Files that add a
// family of pages (account.go, recovery.go) list theirs without editing New.
type namedPage struct {
	file   string
	sample any
}

// renderNamed renders page file in the language of ctx's localizer.
func (s *Set) renderNamed(ctx context.Context, w io.Writer, file string, v any) error {
	byLang, ok := s.pages[file]
	if !ok {
		return fmt.Errorf("templates: no page %s", file)
	}
	loc := i18n.FromContext(ctx)
	return render(w, byLang[loc.Lang()], page{Look: LookFromContext(ctx), Lang: loc.Lang(), Data: v})
}

// ScopeItem is one line of the consent page's list of what the client asks for.
type ScopeItem struct {
	Name        string
	Description string
}

// LoginPage is the sign-in form. The form posts email, password, csrf_token and return_to to
// /login.
type LoginPage struct {
	School    string
	CSRFToken string
	// ReturnTo is where a successful sign-in goes; already checked to be a local path.
	ReturnTo string
	// Message is a plain sentence above the form (a failed attempt, a rate limit).
	Message string
	// PasskeyURL is the passkey sign-in, with return_to ("" where the school has no passkeys).
	PasskeyURL string
}

// ConsentPage asks the signed-in member to approve or deny a client.
type ConsentPage struct {
	School       string
	ClientName   string
	RedirectHost string
	// ClientIDHost is the host of a client identified by a metadata-document URL: the only
	// name of that client anybody vouches for, so the page shows it before the self-chosen
	// client name.
	ClientIDHost string
	LoopbackOnly bool
	Scopes       []ScopeItem
	MemberName   string
	MemberEmail  string
	FormAction   string
	CSRFToken    string
}

// ErrorPage explains, plainly, that something did not work.
type ErrorPage struct {
	School  string // "" when the request has no school
	Title   string
	Message string
	// RequestID lets support find the log line; it says nothing about the failure.
	RequestID string
}

// SignedInPage is shown after a sign-in that had nowhere else to go.
type SignedInPage struct {
	School      string
	MemberName  string
	MemberEmail string
	CSRFToken   string
}

// SignedOutPage confirms a sign-out.
type SignedOutPage struct {
	School string
}

// LogoutPage asks the member to confirm signing out (GET /logout must not sign anyone out: a
// link or an image on another site could trigger it).
type LogoutPage struct {
	School      string
	MemberName  string
	MemberEmail string
	CSRFToken   string
	Message     string
}

// Operator is the signed-in operator every operator page names, with the CSRF token of the
// sign-out form they all carry.
type Operator struct {
	MemberName  string
	MemberEmail string
	CSRFToken   string
}

// OAuthAppItem is one line of the list of OAuth applications.
type OAuthAppItem struct {
	Name         string
	ClientID     string
	Confidential bool
	URL          string // the application's page
	CreatedAt    string
}

// OAuthAppsPage lists a school's OAuth applications (member clients).
type OAuthAppsPage struct {
	School string
	Operator
	Apps    []OAuthAppItem
	NewURL  string
	NextURL string // the next page of the list; "" on the last
}

// ScopeChoice is one checkbox of the scopes an application may be given.
type ScopeChoice struct {
	Name        string
	Description string
	Checked     bool
}

// OAuthAppNewPage is the form that creates an OAuth application. It posts name,
// redirect_uris (one per line), scope (once per checked box), confidential ("yes" when
// checked) and csrf_token to FormAction. After a refused attempt it comes back with the input
// and the messages of each field.
type OAuthAppNewPage struct {
	School string
	Operator
	FormAction      string
	ListURL         string
	Name            string
	RedirectURIs    string
	Scopes          []ScopeChoice
	Confidential    bool
	MaxName         int
	MaxRedirectURIs int
	// Message is a sentence above the form about the form as a whole (an expired form).
	Message string
	// Invalid is set when some field was refused; the *Errors fields say why.
	Invalid                                    bool
	NameErrors, RedirectURIErrors, ScopeErrors []string
}

// OAuthAppDetails is what the pages show about one application.
type OAuthAppDetails struct {
	Name         string
	ClientID     string
	Confidential bool
	RedirectURIs []string
	Scopes       []ScopeItem
	CreatedAt    string
}

// OAuthAppPage shows one application, with links to rotate its secret and to delete it.
type OAuthAppPage struct {
	School string
	Operator
	App       OAuthAppDetails
	ListURL   string
	RotateURL string // only used for a confidential application
	DeleteURL string
}

// OAuthAppSecretPage shows a client secret, once: the answer to the POST that created the
// application or issued the secret, never a page that can be fetched again.
type OAuthAppSecretPage struct {
	School string
	Operator
	App    OAuthAppDetails
	Secret string
	// Rotated is set when the secret replaces an earlier one (otherwise the application is new).
	Rotated bool
	AppURL  string
	ListURL string
}

// OAuthAppConfirmPage asks the operator to confirm an action on an application (a new secret,
// deletion) before the POST that makes it: neither can be undone.
type OAuthAppConfirmPage struct {
	School string
	Operator
	Confirmation
	AppName  string
	ClientID string
}

// Confirmation is what every page that asks before an action shows: the question and what
// the action does, the form that takes it, the ways back, and a message about the last try.
type Confirmation struct {
	Title       string
	Explanation string
	FormAction  string
	Button      string
	// Danger styles the button as destructive.
	Danger    bool
	CancelURL string
	ListURL   string
	Message   string
}

// New parses every page and renders each once in every language with sample data, so that a
// mistake in any of them, or a message missing from the catalogue, fails here, at start-up.
func New() (*Set, error) {
	cat, err := i18n.Load()
	if err != nil {
		return nil, err
	}
	s := &Set{catalog: cat, cssPath: endpoint.Assets + endpoint.AssetName("proctor-", stylesheet, ".css")}
	base, err := template.New("layout.html").Funcs(s.funcs(nil)).ParseFS(pageFiles, "html/layout.html")
	if err != nil {
		return nil, fmt.Errorf("templates: layout: %w", err)
	}
	s.pages = map[string]map[string]*template.Template{}
	for _, p := range append(corePages(), extraPages()...) {
		clone, err := base.Clone()
		if err != nil {
			return nil, fmt.Errorf("templates: %s: %w", p.file, err)
		}
		parsed, err := clone.ParseFS(pageFiles, "html/"+p.file)
		if err != nil {
			return nil, fmt.Errorf("templates: %s: %w", p.file, err)
		}
		s.pages[p.file] = map[string]*template.Template{}
		for _, l := range i18n.Supported {
			t, err := parsed.Clone()
			if err != nil {
				return nil, fmt.Errorf("templates: %s: %w", p.file, err)
			}
			t.Funcs(s.funcs(cat.Localizer(l.Tag, nil)))
			// html/template reports unknown fields, broken contexts and, through "t", missing
			// messages only on execution.
			sample := page{Look: sampleLook, Lang: l.Tag, Data: p.sample}
			if err := t.ExecuteTemplate(io.Discard, "layout.html", sample); err != nil {
				return nil, fmt.Errorf("templates: %s (%s): %w", p.file, l.Tag, err)
			}
			s.pages[p.file][l.Tag] = t
		}
	}
	if s.mail, err = parseMail(s); err != nil {
		return nil, err
	}
	return s, nil
}

// funcs are the functions every template may call; "t" writes a message of loc's catalogue
// (nil while parsing, before a language is bound).
func (s *Set) funcs(loc *i18n.Localizer) template.FuncMap {
	t := func(id string, data ...any) (string, error) { return "", fmt.Errorf("templates: no language bound") }
	if loc != nil {
		t = loc.T
	}
	return template.FuncMap{
		"stylesheet": func() string { return s.cssPath },
		"script":     func() string { return scriptPath },
		"t":          t,
	}
}

// corePages are the pages of the sign-in flow and the operator's application pages.
func corePages() []namedPage {
	op := Operator{MemberName: "N", MemberEmail: "e@example.com", CSRFToken: "t"}
	app := OAuthAppDetails{Name: "A", ClientID: "pc_x", Confidential: true, RedirectURIs: []string{"https://a.example/cb"},
		Scopes: []ScopeItem{{"openid", "d"}}, CreatedAt: "today"}
	return []namedPage{
		{loginFile, LoginPage{School: "S", CSRFToken: "t", ReturnTo: "/", Message: "m", PasskeyURL: "/login/passkey?return_to=%2F"}},
		{consentFile, ConsentPage{
			School: "S", ClientName: "C", RedirectHost: "r.example", ClientIDHost: "c.example", LoopbackOnly: true,
			Scopes: []ScopeItem{{"openid", "d"}}, MemberName: "N", MemberEmail: "e@example.com", FormAction: "/x?y=z", CSRFToken: "t",
		}},
		{errorPageFile, ErrorPage{School: "S", Title: "T", Message: "M", RequestID: "id"}},
		{signedInFile, SignedInPage{School: "S", MemberName: "N", MemberEmail: "e@example.com", CSRFToken: "t"}},
		{signedOutFile, SignedOutPage{School: "S"}},
		{logoutFile, LogoutPage{School: "S", MemberName: "N", MemberEmail: "e@example.com", CSRFToken: "t", Message: "m"}},
		{oauthAppsFile, OAuthAppsPage{School: "S", Operator: op, NewURL: "/n", NextURL: "/x?after=c",
			Apps: []OAuthAppItem{{Name: "A", ClientID: "pc_x", Confidential: true, URL: "/a", CreatedAt: "today"}}}},
		{oauthAppNewFile, OAuthAppNewPage{School: "S", Operator: op, FormAction: "/a", ListURL: "/l",
			Name: "A", RedirectURIs: "https://a.example/cb", Scopes: []ScopeChoice{{"openid", "d", true}}, Confidential: true,
			MaxName: 100, MaxRedirectURIs: 10, Message: "m", Invalid: true,
			NameErrors: []string{"n"}, RedirectURIErrors: []string{"r"}, ScopeErrors: []string{"s"}}},
		{oauthAppFile, OAuthAppPage{School: "S", Operator: op, App: app, ListURL: "/l", RotateURL: "/r", DeleteURL: "/d"}},
		{oauthAppSecretFile, OAuthAppSecretPage{School: "S", Operator: op, App: app, Secret: "s", Rotated: true, AppURL: "/a", ListURL: "/l"}},
		{oauthAppConfirmFile, OAuthAppConfirmPage{School: "S", Operator: op, AppName: "A", ClientID: "pc_x",
			Confirmation: Confirmation{Title: "T", Explanation: "E", FormAction: "/a", Button: "B", Danger: true, CancelURL: "/a", ListURL: "/l", Message: "m"}}},
	}
}

// StylesheetPath is the path of the stylesheet, its name carrying a hash of its content.
func (s *Set) StylesheetPath() string { return s.cssPath }

// Stylesheet returns the stylesheet's content. The slice must not be modified.
func (s *Set) Stylesheet() []byte { return stylesheet }

// Login renders the sign-in form.
func (s *Set) Login(ctx context.Context, w io.Writer, v LoginPage) error {
	return s.renderNamed(ctx, w, loginFile, v)
}

// Consent renders the consent page.
func (s *Set) Consent(ctx context.Context, w io.Writer, v ConsentPage) error {
	return s.renderNamed(ctx, w, consentFile, v)
}

// Error renders an error page.
func (s *Set) Error(ctx context.Context, w io.Writer, v ErrorPage) error {
	return s.renderNamed(ctx, w, errorPageFile, v)
}

// SignedIn renders the page shown after a sign-in with nowhere else to go.
func (s *Set) SignedIn(ctx context.Context, w io.Writer, v SignedInPage) error {
	return s.renderNamed(ctx, w, signedInFile, v)
}

// SignedOut renders the signed-out confirmation.
func (s *Set) SignedOut(ctx context.Context, w io.Writer, v SignedOutPage) error {
	return s.renderNamed(ctx, w, signedOutFile, v)
}

// Logout renders the sign-out confirmation form.
func (s *Set) Logout(ctx context.Context, w io.Writer, v LogoutPage) error {
	return s.renderNamed(ctx, w, logoutFile, v)
}

// OAuthApps renders the list of OAuth applications.
func (s *Set) OAuthApps(ctx context.Context, w io.Writer, v OAuthAppsPage) error {
	return s.renderNamed(ctx, w, oauthAppsFile, v)
}

// OAuthAppNew renders the form that creates an OAuth application.
func (s *Set) OAuthAppNew(ctx context.Context, w io.Writer, v OAuthAppNewPage) error {
	return s.renderNamed(ctx, w, oauthAppNewFile, v)
}

// OAuthApp renders one OAuth application's page.
func (s *Set) OAuthApp(ctx context.Context, w io.Writer, v OAuthAppPage) error {
	return s.renderNamed(ctx, w, oauthAppFile, v)
}

// OAuthAppSecret renders the one-time display of a client secret.
func (s *Set) OAuthAppSecret(ctx context.Context, w io.Writer, v OAuthAppSecretPage) error {
	return s.renderNamed(ctx, w, oauthAppSecretFile, v)
}

// OAuthAppConfirm renders the confirmation of a new secret or a deletion.
func (s *Set) OAuthAppConfirm(ctx context.Context, w io.Writer, v OAuthAppConfirmPage) error {
	return s.renderNamed(ctx, w, oauthAppConfirmFile, v)
}

// render executes into a buffer first, so that a failure half-way leaves w untouched and the
// caller can still answer with an error page.
func render(w io.Writer, t *template.Template, v page) error {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.html", v); err != nil {
		return fmt.Errorf("templates: render %s: %w", t.Name(), err)
	}
	_, err := buf.WriteTo(w)
	return err
}
