package flow

import (
	"errors"
	"net/http"
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
