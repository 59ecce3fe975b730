package admin

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/client"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// listPageSize is how many applications one page of the list shows.
const listPageSize = 50

// maxCursor bounds the list's ?after= cursor; the store's cursors are far shorter.
const maxCursor = 512

// appURL is the path of an application's page. Client ids are ours (client.NewID) or an
// operator's choice through the CLI, so they are escaped.
func appURL(id string) string { return AppsPath + "/" + url.PathEscape(id) }

// list shows one page of the school's member clients, oldest first. Operator clients are not
// listed: the pages manage what Registration rule 5 gives operators, member clients.
func (h *Handler) list(w http.ResponseWriter, r *http.Request, v visit) error {
	after := r.URL.Query().Get("after")
	if len(after) > maxCursor {
		return login.BadForm(nil)
	}
	clients, next, err := h.store.ListClients(r.Context(), storage.ClientMember, storage.Page{First: listPageSize, After: after})
	if errors.Is(err, storage.ErrInvalidArgument) {
		return login.BadForm(err)
	}
	if err != nil {
		return fmt.Errorf("admin: list clients: %w", err)
	}
	page := templates.OAuthAppsPage{School: v.school.Name, Operator: h.operatorView(v), NewURL: NewAppPath}
	for _, c := range clients {
		page.Apps = append(page.Apps, templates.OAuthAppItem{
			Name: c.Name, ClientID: c.ID, Confidential: confidential(c), URL: appURL(c.ID), CreatedAt: v.loc.DateTime(c.CreatedAt),
		})
	}
	if next != "" {
		page.NextURL = AppsPath + "?" + url.Values{"after": {next}}.Encode()
	}
	h.writePage(w, r, http.StatusOK, func(out io.Writer) error { return h.tpl.OAuthApps(r.Context(), out, page) })
	return nil
}

// newForm shows an empty creation form. Only openid is checked at first: every scope beyond
// it is a choice the operator should make, not a default they may overlook.
func (h *Handler) newForm(w http.ResponseWriter, r *http.Request, v visit) error {
	page := h.formPage(v, "", "", []string{scope.OpenID}, false)
	h.writePage(w, r, http.StatusOK, func(out io.Writer) error { return h.tpl.OAuthAppNew(r.Context(), out, page) })
	return nil
}

// formPage is the creation form holding the given input.
func (h *Handler) formPage(v visit, name, redirectURIs string, checked []string, confidential bool) templates.OAuthAppNewPage {
	page := templates.OAuthAppNewPage{
		School: v.school.Name, Operator: h.operatorView(v), FormAction: AppsPath, ListURL: AppsPath,
		Name: name, RedirectURIs: redirectURIs, Confidential: confidential,
		MaxName: client.MaxName, MaxRedirectURIs: client.MaxRedirectURIs,
	}
	for _, s := range client.Scopes(storage.ClientMember) {
		page.Scopes = append(page.Scopes, templates.ScopeChoice{
			Name: s.Name, Description: scope.Describe(v.loc, s.Name), Checked: slices.Contains(checked, s.Name),
		})
	}
	return page
}

// create makes a member client of the school from the form. A public client's page follows by
// redirect; a confidential client's secret is in this very answer and nowhere else.
func (h *Handler) create(w http.ResponseWriter, r *http.Request, v visit) error {
	ctx := r.Context()
	f := r.PostForm
	req := client.Request{
		Kind:         storage.ClientMember,
		Name:         f.Get("name"),
		RedirectURIs: splitLines(f.Get("redirect_uris")),
		Scopes:       f["scope"],
		Confidential: f.Get("confidential") != "",
	}
	form := h.formPage(v, req.Name, f.Get("redirect_uris"), req.Scopes, req.Confidential)
	if !h.checkCSRF(r, v) {
		form.Message = v.loc.Text("admin.form_expired")
		h.writePage(w, r, http.StatusForbidden, func(out io.Writer) error { return h.tpl.OAuthAppNew(r.Context(), out, form) })
		return nil
	}
	c, secret, err := h.clients.Create(ctx, req)
	var invalid *client.RequestError
	if errors.As(err, &invalid) {
		form.Invalid = true
		form.NameErrors = problemTexts(v.loc, invalid, client.FieldName)
		form.RedirectURIErrors = problemTexts(v.loc, invalid, client.FieldRedirectURIs)
		form.ScopeErrors = problemTexts(v.loc, invalid, client.FieldScopes)
		h.writePage(w, r, http.StatusUnprocessableEntity, func(out io.Writer) error { return h.tpl.OAuthAppNew(r.Context(), out, form) })
		return nil
	}
	if err != nil {
		return fmt.Errorf("admin: create client: %w", err)
	}
	h.log.InfoContext(ctx, "oauth application created", "request_id", edge.FromContext(ctx).ID, "school_id", v.school.SchoolID,
		"member_id", v.session.Member.ID, "client_id", c.ID, "token_endpoint_auth_method", c.TokenEndpointAuthMethod)
	h.note(r, v, audit.Event{Kind: audit.KindClientCreated, ClientID: c.ID, Scopes: c.Scopes, Detail: client.EventDetail(c)})
	if secret == "" {
		login.SeeOther(w, appURL(c.ID))
		return nil
	}
	h.renderSecret(w, r, v, c, secret, false)
	return nil
}

// renderSecret answers the POST that issued secret with the one page that will ever show it.
// The page is not a resource that can be fetched again: a reload re-submits the form, which the
// browser asks about first, and issues another secret.
func (h *Handler) renderSecret(w http.ResponseWriter, r *http.Request, v visit, c storage.Client, secret string, rotated bool) {
	page := templates.OAuthAppSecretPage{
		School: v.school.Name, Operator: h.operatorView(v), App: details(v.loc, c), Secret: secret, Rotated: rotated,
		AppURL: appURL(c.ID), ListURL: AppsPath,
	}
	h.writePage(w, r, http.StatusOK, func(out io.Writer) error { return h.tpl.OAuthAppSecret(r.Context(), out, page) })
}

// show is one application's page: what a developer needs (the client_id) and what can be done
// to it.
func (h *Handler) show(w http.ResponseWriter, r *http.Request, v visit) error {
	c, err := h.client(r, v)
	if err != nil {
		return err
	}
	page := templates.OAuthAppPage{
		School: v.school.Name, Operator: h.operatorView(v), App: details(v.loc, c), ListURL: AppsPath,
		DeleteURL: appURL(c.ID) + actionDelete.path,
	}
	if confidential(c) {
		page.RotateURL = appURL(c.ID) + actionRotate.path
	}
	h.writePage(w, r, http.StatusOK, func(out io.Writer) error { return h.tpl.OAuthApp(r.Context(), out, page) })
	return nil
}

// appAction is an action on an application that a page confirms first: its copy, and whether
// only an application with a secret has it.
type appAction struct {
	// path follows the application's URL, for the page and its form alike.
	path string
	// copy is what the confirmation page says, in the request's language.
	copy               func(loc *i18n.Localizer, app string) (title, explanation, button string)
	danger, secretOnly bool
}

var (
	actionRotate = appAction{
		path: "/rotate",
		copy: func(loc *i18n.Localizer, app string) (string, string, string) {
			return loc.Text("admin.app.rotate_title", "App", app), loc.Text("admin.app.rotate_explanation"), loc.Text("admin.app.rotate")
		},
		secretOnly: true,
	}
	actionDelete = appAction{
		path: "/delete",
		copy: func(loc *i18n.Localizer, app string) (string, string, string) {
			return loc.Text("admin.app.delete_title", "App", app), loc.Text("admin.app.delete_explanation"), loc.Text("admin.app.delete")
		},
		danger: true,
	}
)

// confirmApp shows the page that asks before a.
func (h *Handler) confirmApp(a appAction) pageFunc {
	return func(w http.ResponseWriter, r *http.Request, v visit) error {
		c, err := h.appFor(r, v, a)
		if err != nil {
			return err
		}
		h.renderAppConfirm(w, r, v, c, a, http.StatusOK, "")
		return nil
	}
}

// appFor returns the application named by the path, refused when a is not one of its actions.
func (h *Handler) appFor(r *http.Request, v visit, a appAction) (storage.Client, error) {
	c, err := h.client(r, v)
	if err != nil {
		return c, err
	}
	if a.secretOnly && !confidential(c) {
		return c, failPublicApp.with(nil)
	}
	return c, nil
}

// confirmed returns the application of a confirmed form posting a. Without the session's CSRF
// token the confirmation page is shown again with a message, and ok is false.
func (h *Handler) confirmed(w http.ResponseWriter, r *http.Request, v visit, a appAction) (c storage.Client, ok bool, err error) {
	if c, err = h.appFor(r, v, a); err != nil {
		return c, false, err
	}
	if !h.checkCSRF(r, v) {
		h.renderAppConfirm(w, r, v, c, a, http.StatusForbidden, v.loc.Text("admin.form_expired"))
		return c, false, nil
	}
	return c, true, nil
}

func (h *Handler) renderAppConfirm(w http.ResponseWriter, r *http.Request, v visit, c storage.Client, a appAction, status int, msg string) {
	title, explanation, button := a.copy(v.loc, c.Name)
	page := templates.OAuthAppConfirmPage{
		School: v.school.Name, Operator: h.operatorView(v), AppName: c.Name, ClientID: c.ID,
		Confirmation: templates.Confirmation{
			Title: title, Explanation: explanation, FormAction: appURL(c.ID) + a.path, Button: button, Danger: a.danger,
			CancelURL: appURL(c.ID), ListURL: AppsPath, Message: msg,
		},
	}
	h.writePage(w, r, status, func(out io.Writer) error { return h.tpl.OAuthAppConfirm(r.Context(), out, page) })
}

// rotate replaces a confidential client's secret and shows the new one, once.
func (h *Handler) rotate(w http.ResponseWriter, r *http.Request, v visit) error {
	ctx := r.Context()
	c, ok, err := h.confirmed(w, r, v, actionRotate)
	if !ok {
		return err
	}
	c, secret, err := h.clients.RotateSecret(ctx, c.ID, storage.ClientMember)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return failNoApp.with(err)
	case errors.Is(err, client.ErrPublic):
		return failPublicApp.with(err)
	case err != nil:
		return fmt.Errorf("admin: rotate secret: %w", err)
	}
	h.log.InfoContext(ctx, "oauth application secret rotated", "request_id", edge.FromContext(ctx).ID, "school_id", v.school.SchoolID,
		"member_id", v.session.Member.ID, "client_id", c.ID)
	h.note(r, v, audit.Event{Kind: audit.KindClientSecretRotated, ClientID: c.ID})
	h.renderSecret(w, r, v, c, secret, true)
	return nil
}

// delete removes the client; the store revokes every token pair and authorization code it
// holds in the same transaction, so nothing it was given outlives it.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request, v visit) error {
	ctx := r.Context()
	c, ok, err := h.confirmed(w, r, v, actionDelete)
	if !ok {
		return err
	}
	err = h.clients.Delete(ctx, c.ID, h.now())
	if errors.Is(err, storage.ErrNotFound) {
		return failNoApp.with(err)
	}
	if err != nil {
		return fmt.Errorf("admin: delete client: %w", err)
	}
	h.log.InfoContext(ctx, "oauth application deleted", "request_id", edge.FromContext(ctx).ID, "school_id", v.school.SchoolID,
		"member_id", v.session.Member.ID, "client_id", c.ID)
	// Deleting the client revoked every grant it held (DeleteClient): one event says both.
	h.note(r, v, audit.Event{Kind: audit.KindClientDeleted, ClientID: c.ID, Scopes: c.Scopes, Detail: "tokens revoked"})
	login.SeeOther(w, AppsPath)
	return nil
}

// client returns the member client named by the path. The store is school-scoped, so another
// school's client is not found; an operator client is treated as absent too, since these pages
// neither made it nor manage it.
func (h *Handler) client(r *http.Request, v visit) (storage.Client, error) {
	id := mux.Vars(r)["id"]
	c, err := h.store.GetClient(r.Context(), id)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && c.Kind != storage.ClientMember) {
		return storage.Client{}, failNoApp.with(err)
	}
	if err != nil {
		return storage.Client{}, fmt.Errorf("admin: get client: %w", err)
	}
	return c, nil
}

func confidential(c storage.Client) bool {
	return c.TokenEndpointAuthMethod == storage.AuthMethodSecretPost
}

// details is what the pages show of a client; never its secret hash.
func details(loc *i18n.Localizer, c storage.Client) templates.OAuthAppDetails {
	d := templates.OAuthAppDetails{
		Name: c.Name, ClientID: c.ID, Confidential: confidential(c), RedirectURIs: c.RedirectURIs,
		CreatedAt: loc.DateTime(c.CreatedAt),
	}
	for _, name := range c.Scopes {
		d.Scopes = append(d.Scopes, templates.ScopeItem{Name: name, Description: scope.Describe(loc, name)})
	}
	return d
}

// splitLines reads the redirect URIs text area: one URI a line, blank lines ignored, whatever
// the line ending the browser sent (forms submit CR LF).
func splitLines(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// problemTexts are the sentences the form shows about one field: each of package client's
// problems in the request's language, by the rule it names.
func problemTexts(loc *i18n.Localizer, e *client.RequestError, field string) []string {
	var out []string
	for _, p := range e.Problems {
		if p.Field == field {
			out = append(out, problemText(loc, p))
		}
	}
	return out
}

func problemText(loc *i18n.Localizer, p client.Problem) string {
	var v []any
	for name, value := range p.Values {
		v = append(v, name, value)
	}
	switch p.Rule {
	case "name_missing":
		return loc.Text("admin.field.name_missing", v...)
	case "name_invalid_text":
		return loc.Text("admin.field.name_invalid_text", v...)
	case "name_too_long":
		return loc.Text("admin.field.name_too_long", v...)
	case "name_invisible":
		return loc.Text("admin.field.name_invisible", v...)
	case "uris_missing":
		return loc.Text("admin.field.uris_missing", v...)
	case "uris_too_many":
		return loc.Text("admin.field.uris_too_many", v...)
	case "uri_duplicate":
		return loc.Text("admin.field.uri_duplicate", v...)
	case "uri_too_long":
		return loc.Text("admin.field.uri_too_long", v...)
	case "uri_not_absolute":
		return loc.Text("admin.field.uri_not_absolute", v...)
	case "uri_scheme":
		return loc.Text("admin.field.uri_scheme", v...)
	case "uri_fragment":
		return loc.Text("admin.field.uri_fragment", v...)
	case "uri_user":
		return loc.Text("admin.field.uri_user", v...)
	case "uri_http_host":
		return loc.Text("admin.field.uri_http_host", v...)
	case "scopes_missing":
		return loc.Text("admin.field.scopes_missing", v...)
	case "scopes_unavailable":
		return loc.Text("admin.field.scopes_unavailable", v...)
	}
	return sentence(p.Message)
}

// sentence turns a message of package client without a rule of its own, written as a Go error
// (lower case, no full stop, so that it composes), into a sentence for the page.
func sentence(m string) string {
	r, size := utf8.DecodeRuneInString(m)
	m = string(unicode.ToUpper(r)) + m[size:]
	if !strings.HasSuffix(m, ".") {
		m += "."
	}
	return m
}
