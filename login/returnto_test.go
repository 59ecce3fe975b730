package login

import (
	"net/url"
	"strings"
	"testing"
)

// returnToCases are return_to values and whether SafeReturnTo keeps them.
var returnToCases = []struct {
	in   string
	safe bool
}{
	{"/", true},
	{"/oauth/authorize?client_id=x&redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcb&state=a%2Fb", true},
	{"/login/done", true},
	{"/a/b#frag", true},
	{"/a:b", true},
	{"", false},
	{"//evil.example", false},
	{"///evil.example", false},
	{"/\\evil.example", false},
	{"\\/evil.example", false},
	{"/a\\b", false},
	{"https://evil.example", false},
	{"HTTPS://evil.example/", false},
	{"javascript:alert(1)", false},
	{"JavaScript:alert(1)", false},
	{"data:text/html,x", false},
	{"/\t/evil.example", false},
	{"/\r\n/evil.example", false},
	{"/a b", false},
	{"/\x00", false},
	{"/é", false},
	{"/%2f%2fevil.example", false},
	{"/%2F/evil.example", false},
	{"/%5cevil.example", false},
	{"/%09/evil.example", false},
	{"/..//evil.example", false},
	{"/%2e%2e//evil.example", false},
	{"/./x", false},
	{"/%zz", false},
	{"evil.example", false},
	{"?x=1", false},
	{"/" + strings.Repeat("a", maxReturnTo), false},
}

func TestSafeReturnTo(t *testing.T) {
	for _, tc := range returnToCases {
		want := DefaultReturnTo
		if tc.safe {
			want = tc.in
		}
		if got := SafeReturnTo(tc.in); got != want {
			t.Errorf("SafeReturnTo(%q) = %q, want %q", tc.in, got, want)
		}
	}
}

// FuzzSafeReturnTo checks that whatever comes in, what comes out is the input or the default,
// and resolves, in Go's parser and by a browser's rules, to a path on the origin.
func FuzzSafeReturnTo(f *testing.F) {
	for _, s := range []string{
		"/", "/oauth/authorize?x=1", "//evil.example", "/\\evil.example", "https://evil.example",
		"javascript:alert(1)", "/\t/evil", "/%2F%2Fevil", "/..//evil", "/a?b=//c", "/#//evil",
	} {
		f.Add(s)
	}
	base, _ := url.Parse("https://school.example/some/page")
	f.Fuzz(func(t *testing.T, in string) {
		out := SafeReturnTo(in)
		if out != in && out != DefaultReturnTo {
			t.Fatalf("SafeReturnTo(%q) = %q", in, out)
		}
		ref, err := url.Parse(out)
		if err != nil {
			t.Fatalf("accepted %q does not parse: %v", out, err)
		}
		got := base.ResolveReference(ref)
		if got.Scheme != "https" || got.Host != "school.example" || got.User != nil {
			t.Fatalf("%q resolves to %q", out, got)
		}
		// What browsers do before resolving: drop tabs and newlines, read "\" as "/".
		browser := strings.NewReplacer("\t", "", "\n", "", "\r", "", "\\", "/").Replace(out)
		if !strings.HasPrefix(browser, "/") || strings.HasPrefix(browser, "//") {
			t.Fatalf("%q reads as %q in a browser", out, browser)
		}
		if strings.TrimLeft(out, " \x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f") != out {
			t.Fatalf("%q starts with a character browsers strip", out)
		}
	})
}

// TestWithReturnToNeverCarriesAnUnsafeValue: a link built by WithReturnTo carries the return_to
// SafeReturnTo keeps, and DefaultReturnTo in place of an unsafe one, never the unsafe value; a
// query the path already has is kept.
func TestWithReturnToNeverCarriesAnUnsafeValue(t *testing.T) {
	for _, path := range []string{LoginPath, FactorPath + "?step_up=1", FactorEnrolPath, PasskeyLoginPath} {
		for _, tc := range returnToCases {
			link := WithReturnTo(path, tc.in)
			u, err := url.Parse(link)
			if err != nil {
				t.Fatalf("WithReturnTo(%q, %q) = %q: %v", path, tc.in, link, err)
			}
			base, _, _ := strings.Cut(path, "?")
			if u.Path != base || u.Host != "" || u.Scheme != "" {
				t.Errorf("WithReturnTo(%q, %q) = %q: not a link to %s", path, tc.in, link, base)
			}
			q := u.Query()
			if strings.Contains(path, "step_up=1") && q.Get("step_up") != "1" {
				t.Errorf("WithReturnTo(%q, %q) = %q: step_up lost", path, tc.in, link)
			}
			want := DefaultReturnTo
			if tc.safe {
				want = tc.in
			}
			if got := q["return_to"]; len(got) != 1 || got[0] != want {
				t.Errorf("WithReturnTo(%q, %q) = %q: return_to %q, want %q", path, tc.in, link, got, want)
			}
		}
	}
}

// FuzzWithReturnTo: whatever return_to comes in, the link carries exactly one return_to, the
// input or DefaultReturnTo, and SafeReturnTo keeps it unchanged.
func FuzzWithReturnTo(f *testing.F) {
	for _, tc := range returnToCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		link := WithReturnTo(FactorPath+"?step_up=1", in)
		u, err := url.Parse(link)
		if err != nil {
			t.Fatalf("WithReturnTo(%q) = %q: %v", in, link, err)
		}
		q := u.Query()
		if u.Path != FactorPath || q.Get("step_up") != "1" || len(q["step_up"]) != 1 {
			t.Fatalf("WithReturnTo(%q) = %q", in, link)
		}
		if rt := q["return_to"]; len(rt) != 1 || (rt[0] != in && rt[0] != DefaultReturnTo) || SafeReturnTo(rt[0]) != rt[0] {
			t.Fatalf("WithReturnTo(%q) = %q: return_to %q", in, link, rt)
		}
	})
}
