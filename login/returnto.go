package login

import (
	"net/url"
	"strings"
)

// DefaultReturnTo is where a sign-in goes when return_to is missing or refused.
const DefaultReturnTo = DonePath

// maxReturnTo bounds return_to. An authorization request's URI can be long (scopes, PKCE,
// resource, state), so the bound is generous, but it keeps the Location header well inside
// what browsers and proxies accept.
const maxReturnTo = 8 << 10

// SafeReturnTo returns s if it is a path on this origin a sign-in may redirect to, and
// DefaultReturnTo otherwise. It never lets a redirect leave the origin: see localPath.
func SafeReturnTo(s string) string {
	if localPath(s, maxReturnTo) {
		return s
	}
	return DefaultReturnTo
}

// WithReturnTo is the link to path that comes back to returnTo afterwards. returnTo is always
// held to SafeReturnTo, so a link built here never carries a value that leaves the origin: a
// refused one becomes DefaultReturnTo, where the page it names would have gone anyway. path may
// already have a query ("/login/factor?step_up=1"); return_to is then appended with "&".
func WithReturnTo(path, returnTo string) string {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return path + sep + "return_to=" + url.QueryEscape(SafeReturnTo(returnTo))
}

// localPath reports whether s is a relative reference that every browser resolves to a path on
// the current origin: it starts with exactly one "/", and nothing in it can be read as a
// scheme or an authority. Browsers are lenient in ways url.Parse is not, so the check is
// stricter than the URL grammar:
//   - "//host" and "/\host" are network-path references (browsers treat "\" as "/");
//   - tabs and newlines are deleted by the URL parser of browsers, so "/\t/host" becomes
//     "//host"; every control character, space and non-ASCII byte is refused (a URI taken from
//     a request is already percent-encoded);
//   - "/%2F%2Fhost" is harmless to a browser but a server that decodes before redirecting would
//     make it "//host", so the decoded path is held to the same rules;
//   - dot segments ("/..//host") collapse into "//host" on some servers' path cleaning and no
//     page of ours needs them.
func localPath(s string, max int) bool {
	if len(s) < 1 || len(s) > max || s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '\\' {
			return false
		}
	}
	if len(s) > 1 && s[1] == '/' {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return false
	}
	dec, err := url.PathUnescape(u.EscapedPath())
	if err != nil || strings.HasPrefix(dec, "//") {
		return false
	}
	for i := 0; i < len(dec); i++ {
		if c := dec[i]; c < ' ' || c == 0x7f || c == '\\' {
			return false
		}
	}
	for _, seg := range strings.Split(dec, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
