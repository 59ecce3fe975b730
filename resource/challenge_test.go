package resource

import (
	"net/http"
	"strings"
	"testing"
)

func TestBearerToken(t *testing.T) {
	for _, tc := range []struct {
		headers []string
		token   string
		bad     bool
	}{
		{nil, "", false},
		{[]string{"Bearer abc.DEF-_~+/="}, "abc.DEF-_~+/=", false},
		{[]string{"bearer abc"}, "abc", false},
		{[]string{"Bearer  abc"}, "abc", false},
		{[]string{"Basic abc"}, "", true},
		{[]string{"Bearer"}, "", true},
		{[]string{"Bearer "}, "", true},
		{[]string{"Bearer a b"}, "", true},
		{[]string{"Bearer a\"b"}, "", true},
		{[]string{"Bearer a", "Bearer b"}, "", true},
		{[]string{"Bearer " + strings.Repeat("a", 5000)}, "", true},
	} {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		for _, h := range tc.headers {
			r.Header.Add("Authorization", h)
		}
		got, err := BearerToken(r)
		if got != tc.token || (err != nil) != tc.bad {
			t.Errorf("%q: got %q, %v", tc.headers, got, err)
		}
	}
}

func FuzzBearerToken(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer  x.y", "Basic Zm9v", "Bearer", "Bearer \x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Authorization", h)
		tok, err := BearerToken(r)
		if err == nil && tok != "" && strings.ContainsAny(tok, " \t\r\n\"") {
			t.Fatalf("accepted token %q with a separator", tok)
		}
	})
}
