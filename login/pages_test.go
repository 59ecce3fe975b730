package login

import (
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/school"
)

var actionPattern = regexp.MustCompile(`<form method="post" action="([^"]*)">\s*<input type="hidden" name="csrf_token" value="[^"]*">\s*<div class="actions">`)

func TestConsentPage(t *testing.T) {
	e := newEnv(t, nil)
	b := e.browser(hostA, true)
	b.mustLogin()
	s, _ := b.current()
	hostile := `<script>alert("pwned")</script>`
	for _, tc := range []struct {
		name      string
		query     url.Values
		want      []string
		wantNot   []string
		loopback  bool
		clientIDs bool
	}{
		{
			name:    "plain client",
			query:   url.Values{"client_name": {"Course Helper"}},
			want:    []string{"Course Helper", "School A"},
			wantNot: []string{"published by", "loopback"},
		},
		{
			name:    "hostile name",
			query:   url.Values{"client_name": {hostile}},
			want:    []string{"&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;"},
			wantNot: []string{"<script"},
		},
		{
			name:  "metadata-document client on loopback",
			query: url.Values{"client_name": {"Tool"}, "client_id_host": {"tools.example"}, "loopback": {"1"}},
			want:  []string{`<span class="host">tools.example</span>`, "published by", "loopback"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := "/oauth/authorize?" + tc.query.Encode()
			res := b.do(http.MethodGet, target, nil)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("%d\n%s", res.StatusCode, res.body)
			}
			h := res.Header
			if h.Get("Content-Security-Policy") != ConsentPolicy || h.Get("Cache-Control") != "no-store" ||
				h.Get("X-Frame-Options") != "DENY" || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
				t.Errorf("headers %v", h)
			}
			want := append([]string{
				`<button type="submit" name="decision" value="approve"`,
				`<button type="submit" name="decision" value="deny"`,
				`name="csrf_token" value="` + e.h.CSRFToken(s) + `"`,
				"Confirm who you are", "openid",
				"See your own courses, progress, purchases and notifications at this school", "account:read",
				"127.0.0.1:53000", "Ann Example", annEmail,
				`action="/logout"`,
			}, tc.want...)
			if m := actionPattern.FindStringSubmatch(res.body); m == nil || html.UnescapeString(m[1]) != target {
				t.Errorf("decision form action %v, want %q", m, target)
			}
			for _, w := range want {
				if !strings.Contains(res.body, w) {
					t.Errorf("consent page lacks %q", w)
				}
			}
			for _, w := range append([]string{"remember", "Remember"}, tc.wantNot...) {
				if strings.Contains(res.body, w) {
					t.Errorf("consent page contains %q", w)
				}
			}
		})
	}
}

func TestConsentRefusesForeignFormAction(t *testing.T) {
	e := newEnv(t, nil)
	for _, action := range []string{"", "https://evil.example/x", "//evil.example", "javascript:alert(1)"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "http://a.test/oauth/authorize", nil)
		req = req.WithContext(school.NewContext(req.Context(), e.schools[hostA]))
		e.h.RenderConsent(rec, req, Session{ID: "x", Member: e.ann}, ConsentView{ClientName: "C", FormAction: action})
		if rec.Code != http.StatusInternalServerError || strings.Contains(rec.Body.String(), "decision") {
			t.Errorf("form action %q: %d", action, rec.Code)
		}
	}
}

func TestCheckCSRF(t *testing.T) {
	e := newEnv(t, nil)
	s := Session{ID: e.h.sessionID(NewToken())}
	other := Session{ID: e.h.sessionID(NewToken())}
	right := e.h.CSRFToken(s)
	for _, tc := range []struct {
		name    string
		session Session
		form    url.Values
		query   string
		want    bool
	}{
		{"right token", s, url.Values{CSRFField: {right}}, "", true},
		{"missing", s, url.Values{}, "", false},
		{"empty", s, url.Values{CSRFField: {""}}, "", false},
		{"wrong", s, url.Values{CSRFField: {"AAAA"}}, "", false},
		{"truncated", s, url.Values{CSRFField: {right[:len(right)-1]}}, "", false},
		{"another session's", s, url.Values{CSRFField: {e.h.CSRFToken(other)}}, "", false},
		{"the session id itself", s, url.Values{CSRFField: {s.ID}}, "", false},
		{"a login form's", s, url.Values{CSRFField: {e.h.loginCSRFToken(NewToken())}}, "", false},
		{"in the query only", s, url.Values{}, CSRFField + "=" + url.QueryEscape(right), false},
		{"no session", Session{}, url.Values{CSRFField: {e.h.CSRFToken(Session{})}}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "http://a.test/oauth/authorize?"+tc.query, strings.NewReader(tc.form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if got := e.h.CheckCSRF(req, tc.session); got != tc.want {
				t.Errorf("CheckCSRF = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRenderError(t *testing.T) {
	e := newEnv(t, nil)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "http://a.test/oauth/authorize", nil)
	ctx := edge.NewContext(school.NewContext(req.Context(), e.schools[hostA]), &edge.Info{ID: "req-42"})
	e.h.RenderError(rec, req.WithContext(ctx), http.StatusBadRequest, ErrorView{Title: "Unknown application", Message: "The link you followed is not valid."})
	body := rec.Body.String()
	if rec.Code != http.StatusBadRequest || rec.Header().Get("Content-Security-Policy") != PagePolicy || rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("%d %v", rec.Code, rec.Header())
	}
	for _, w := range []string{"Unknown application", "The link you followed is not valid.", "req-42", "School A"} {
		if !strings.Contains(body, w) {
			t.Errorf("error page lacks %q", w)
		}
	}
}

func TestPageHeadersAndAssets(t *testing.T) {
	e := newEnv(t, nil)
	b := e.browser(hostA, false)
	res := b.do(http.MethodGet, LoginPath, nil)
	if res.Header.Get("Content-Security-Policy") != PagePolicy || res.Header.Get("Cache-Control") != "no-store" || res.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("login headers %v", res.Header)
	}
	css := e.h.tpl.StylesheetPath()
	if !strings.Contains(res.body, `href="`+css+`"`) {
		t.Fatalf("login page does not link %s", css)
	}
	asset := b.do(http.MethodGet, css, nil)
	if asset.StatusCode != http.StatusOK || !strings.HasPrefix(asset.Header.Get("Content-Type"), "text/css") ||
		!strings.Contains(asset.Header.Get("Cache-Control"), "immutable") || asset.body != string(e.h.tpl.Stylesheet()) {
		t.Errorf("stylesheet: %d %v", asset.StatusCode, asset.Header)
	}
	if res := b.do(http.MethodGet, "/assets/other.css", nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown asset: %d", res.StatusCode)
	}
	// Policies differ only in form-action (see ConsentPolicy).
	if strings.Replace(PagePolicy, " form-action 'self';", "", 1) != ConsentPolicy {
		t.Error("ConsentPolicy drifted from PagePolicy")
	}
}
