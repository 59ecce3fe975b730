package flow

import (
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestFormWith(t *testing.T) {
	page := []byte(`<form method="post" action="/logout"><input type="hidden" name="csrf_token" value="a"></form>
<form method="post" action="/login?x=1" class="stack">
<input type="hidden" name="csrf_token" value="b"><input name="email" type="email">
<input type="submit" name="go" value="Sign in"></form>`)
	f, err := FormWith("http://school.example/login", page, "email")
	if err != nil {
		t.Fatal(err)
	}
	if f.Action != "http://school.example/login?x=1" {
		t.Errorf("action %q", f.Action)
	}
	if f.Values.Get("csrf_token") != "b" || f.Values.Has("go") || !f.Values.Has("email") {
		t.Errorf("values %v", f.Values)
	}
	if _, err := FormWith("http://school.example/", page, "password"); err == nil {
		t.Error("a form without the field was found")
	}
}

// The server's pages as the parser meets them: the sign-in, consent and sign-out forms flow
// posts, and a form with checked and unchecked boxes, a repeated name and a text area.
var formPages = []string{
	`<form method="post" action="/login" class="stack">
<input type="hidden" name="csrf_token" value="t1">
<input type="hidden" name="return_to" value="/authorize?client_id=c&amp;state=s">
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" class="primary">Sign in</button>
</form>`,
	`<form method="post" action="/authorize?client_id=c&amp;state=s">
<input type="hidden" name="csrf_token" value="t2">
<div class="actions">
<button type="submit" name="decision" value="approve" class="primary">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
<form method="post" action="/logout" class="signout">
<input type="hidden" name="csrf_token" value="t2">
<button type="submit" class="link">Not you?</button>
</form>`,
	`<form method="post" action="/admin/apps/new" class="stack">
<input type="hidden" name="csrf_token" value="t3">
<textarea id="redirect_uris" name="redirect_uris" rows="4">https://a.example/cb
https://b.example/cb</textarea>
<label><input type="checkbox" name="scope" value="openid" checked> openid</label>
<label><input type="checkbox" name="scope" value="email"> email</label>
<label><input type="checkbox" name="scope" value="profile" checked> profile</label>
<input type="radio" name="kind" value="public"><input type="radio" name="kind" value="confidential" checked>
<input type="submit" name="go" value="Create"><input type="image" name="pic" value="p">
</form>`,
}

func TestParseForms(t *testing.T) {
	base, _ := url.Parse("http://school.example/login?return_to=x")
	forms := ParseForms(base, []byte(strings.Join(formPages, "\n")))
	if len(forms) != 4 {
		t.Fatalf("%d forms: %+v", len(forms), forms)
	}
	signIn, consent, signOut, app := forms[0], forms[1], forms[2], forms[3]
	want := url.Values{"csrf_token": {"t1"}, "return_to": {"/authorize?client_id=c&state=s"}, "email": {""}, "password": {""}}
	if signIn.Method != "POST" || signIn.Action != "http://school.example/login" || !reflect.DeepEqual(signIn.Values, want) || signIn.Buttons != nil {
		t.Errorf("sign-in form %+v", signIn)
	}
	if consent.Action != "http://school.example/authorize?client_id=c&state=s" ||
		!reflect.DeepEqual(consent.Values, url.Values{"csrf_token": {"t2"}}) ||
		!reflect.DeepEqual(consent.Buttons, []Button{{"decision", "approve"}, {"decision", "deny"}}) {
		t.Errorf("consent form %+v", consent)
	}
	if v := consent.Submission("decision"); v.Get("decision") != "approve" || consent.Values.Has("decision") {
		t.Errorf("Submission changed the form or pressed no button: %v, %v", v, consent.Values)
	}
	if signOut.Action != "http://school.example/logout" || len(signOut.Values) != 1 || signOut.Buttons != nil {
		t.Errorf("sign-out form %+v", signOut)
	}
	want = url.Values{"csrf_token": {"t3"}, "redirect_uris": {"https://a.example/cb\nhttps://b.example/cb"},
		"scope": {"openid", "profile"}, "kind": {"confidential"}}
	if !reflect.DeepEqual(app.Values, want) || !reflect.DeepEqual(app.Buttons, []Button{{"go", "Create"}, {"pic", "p"}}) {
		t.Errorf("app form %+v", app)
	}
	if v := app.Submission("go"); v.Get("go") != "Create" || v.Has("pic") || len(v["scope"]) != 2 {
		t.Errorf("Submission(go) %v", v)
	}
	if f := ParseForms(nil, []byte(`<form action="/x"><input name="a" value="1"></form>`)); f[0].Action != "/x" {
		t.Errorf("without a base the action is %q", f[0].Action)
	}
}

// FuzzParseForms feeds the parser pages from outside: it must never fail, every form's action
// must be resolved against the page's URL (or be kept as written when it is not a URL), and every
// value and button must come from a named field.
func FuzzParseForms(f *testing.F) {
	for _, p := range formPages {
		f.Add([]byte(p))
	}
	f.Add([]byte(`<input name="early"><textarea name="t">x</form><form action="%zz"><button name="b">`))
	base, _ := url.Parse("http://school.example/login")
	f.Fuzz(func(t *testing.T, page []byte) {
		for _, form := range ParseForms(base, page) {
			if u, err := url.Parse(form.Action); err == nil && !u.IsAbs() {
				if _, err := base.Parse(form.Action); err == nil {
					t.Errorf("action %q not resolved against %s", form.Action, base)
				}
			}
			for name := range form.Values {
				if name == "" {
					t.Errorf("a value without a name: %v", form.Values)
				}
			}
			for _, b := range form.Buttons {
				if b.Name == "" {
					t.Errorf("a button without a name: %v", form.Buttons)
				}
			}
		}
	})
}

func TestResponse(t *testing.T) {
	r := Response{Status: http.StatusBadRequest, Body: []byte(`{"error": "invalid_grant",` + "\n" + `"error_description": "` + strings.Repeat("x", 300) + `"}`)}
	if r.OAuthError() != "invalid_grant" {
		t.Errorf("OAuthError %q", r.OAuthError())
	}
	if s := r.String(); !strings.HasPrefix(s, `status 400: {"error": "invalid_grant", "error_description": "xx`) || len(s) != len("status 400: ")+160+3 {
		t.Errorf("String %q", s)
	}
	if err := r.Err("refresh"); !strings.HasPrefix(err.Error(), "refresh: status 400: ") {
		t.Errorf("Err %v", err)
	}
	if IsTransport(errors.New("no")) || !IsTransport(&TransportError{errors.New("reset")}) {
		t.Error("IsTransport")
	}
}
