package login

import (
	"net/http"
	"net/url"
	"time"

	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/templates"
)

// LanguagePath is the language switcher's link: GET /language?lang=ja&return_to=/login records
// the member's choice in a cookie and goes back to the page. It is a link, not a form: the
// choice changes nothing but the words of the pages, so a link from another site that sets it
// does no harm, and every page can offer it without a CSRF token.
const LanguagePath = "/language"

// LanguageCookie holds the member's choice of language (a tag of i18n.Supported), named like
// every cookie of these pages (CookieName).
const LanguageCookie = "proctor_lang"

// languageCookieLifetime is how long the choice is remembered.
const languageCookieLifetime = 365 * 24 * time.Hour

// Localize puts in the request's context the localizer of the request's language (the
// member's choice, the browser's Accept-Language, the school's locale: i18n.Catalog.Choose) in
// the school's time zone, and the look of its pages: the school's appearance (Deps.Look) and
// the switcher's links back to the page. A request without a school passes unchanged.
func (h *Handler) Localize(next http.Handler) http.Handler {
	cat := h.tpl.Catalog()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, err := school.FromContext(r.Context())
		if err != nil {
			next.ServeHTTP(w, r)
			return
		}
		lang := cat.Choose(chosenLanguage(r), r.Header.Get("Accept-Language"), t.Locale)
		ctx := i18n.NewContext(r.Context(), cat.Localizer(lang, t.Location))
		ctx = templates.NewLookContext(ctx, func() templates.Look {
			look := templates.Look{Theme: "auto"}
			if h.look != nil {
				look = h.look(ctx, t)
			}
			look.Languages = languageLinks(r, lang)
			return look
		})
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// chosenLanguage is the member's choice from the request's cookie, "" without one.
func chosenLanguage(r *http.Request) string {
	c, err := r.Cookie(CookieName(secureCookies(r), LanguageCookie))
	if err != nil {
		return ""
	}
	return c.Value
}

// languageLinks are the switcher's links for a page in lang. Each comes back to the page: to
// the same address for a GET (its return_to checked), to the path alone after a POST (a form's
// answer; the path's GET shows the form again).
func languageLinks(r *http.Request, lang string) []templates.LanguageLink {
	back := r.URL.Path
	if r.Method == http.MethodGet && r.URL.RawQuery != "" {
		// The page's own return_to comes back checked, so that no page repeats a hostile one.
		q := r.URL.Query()
		if rt, ok := q["return_to"]; ok && len(rt) > 0 {
			q.Set("return_to", SafeReturnTo(rt[0]))
		}
		back += "?" + q.Encode()
	}
	back = SafeReturnTo(back)
	out := make([]templates.LanguageLink, len(i18n.Supported))
	for i, l := range i18n.Supported {
		q := url.Values{"lang": {l.Tag}, "return_to": {back}}
		out[i] = templates.LanguageLink{Tag: l.Tag, Name: l.Name, URL: LanguagePath + "?" + q.Encode(), Current: l.Tag == lang}
	}
	return out
}

// switchLanguage records the member's choice of language and goes back to the page, a local
// path only (SafeReturnTo). An unknown language changes nothing.
func (h *Handler) switchLanguage(w http.ResponseWriter, r *http.Request) error {
	if lang := r.URL.Query().Get("lang"); i18n.Supports(lang) {
		SetCookie(w, secureCookies(r), LanguageCookie, lang, languageCookieLifetime, http.SameSiteLaxMode)
	}
	SeeOther(w, SafeReturnTo(r.URL.Query().Get("return_to")))
	return nil
}
