package passkey

import (
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/protocol"
)

// Bounds of what the finish endpoints read. A credential's JSON is a few hundred bytes (a
// registration with a large RSA key or a certificate chain a few kilobytes); the server's body
// limit bounds the whole form besides.
const (
	maxResponseBytes = 64 << 10
	maxNameRunes     = 64
	maxTransports    = 8
)

// Reading errors. They are logged, never shown: the member sees one plain sentence.
var (
	errNoResponse   = errors.New("passkey: the form has no response")
	errBigResponse  = errors.New("passkey: the response is too large")
	errTwoResponses = errors.New("passkey: the form has more than one response")
	errBadID        = errors.New("passkey: not a passkey id")
)

// readResponse returns the form's one "response" field: the browser's credential as JSON
// (PublicKeyCredential.toJSON).
func readResponse(form url.Values) ([]byte, error) {
	vs := form["response"]
	switch {
	case len(vs) == 0 || vs[0] == "":
		return nil, errNoResponse
	case len(vs) > 1:
		return nil, errTwoResponses
	case len(vs[0]) > maxResponseBytes:
		return nil, errBigResponse
	}
	return []byte(vs[0]), nil
}

// parseCreation reads a registration's credential from the form.
func parseCreation(form url.Values) (*protocol.ParsedCredentialCreationData, error) {
	raw, err := readResponse(form)
	if err != nil {
		return nil, err
	}
	return protocol.ParseCredentialCreationResponseBytes(raw)
}

// parseAssertion reads a sign-in's assertion from the form.
func parseAssertion(form url.Values) (*protocol.ParsedCredentialAssertionData, error) {
	raw, err := readResponse(form)
	if err != nil {
		return nil, err
	}
	return protocol.ParseCredentialRequestResponseBytes(raw)
}

// cleanName is the name a member gives a passkey as it is kept: control and format characters
// (and invalid UTF-8) dropped, spaces collapsed, at most maxNameRunes characters. Empty stays
// empty (the caller picks a default).
func cleanName(s string) string {
	var b strings.Builder
	n := 0
	space := false
	for _, c := range s {
		switch {
		case c == utf8.RuneError, unicode.Is(unicode.Cf, c):
			continue
		case unicode.IsSpace(c) || unicode.IsControl(c):
			space = b.Len() > 0
			continue
		}
		if n == maxNameRunes {
			break
		}
		if space {
			if n+1 == maxNameRunes {
				break
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(c)
		n++
	}
	return b.String()
}

// readID reads the form's passkey id.
func readID(form url.Values) (int64, error) {
	id, err := strconv.ParseInt(form.Get("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, errBadID
	}
	return id, nil
}

// transportName is a transport hint as WebAuthn names them ("usb", "hybrid", "smart-card").
var transportName = regexp.MustCompile(`^[a-z][a-z-]{0,31}$`)

// cleanTransports keeps the browser's transport hints that look like hints, at most
// maxTransports: they are stored and handed back to browsers, and nothing else reads them.
func cleanTransports(ts []protocol.AuthenticatorTransport) []string {
	var out []string
	for _, t := range ts {
		if len(out) == maxTransports {
			break
		}
		if s := string(t); transportName.MatchString(s) {
			out = append(out, s)
		}
	}
	return out
}
