package cimd

import (
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/client"
)

func TestParseClientID(t *testing.T) {
	for id, ok := range map[string]bool{
		"https://client.example/client.json":                          true,
		"https://client.example:8443/oauth/client.json":               true,
		"https://client.example/client.json?v=2":                      true,
		"https://[2001:db8::1]/client.json":                           true,
		"https://client.example":                                      false, // no path (draft section 3)
		"https://client.example/":                                     false,
		"http://client.example/client.json":                           false,
		"HTTPS://client.example/client.json":                          false,
		"https://user:pw@client.example/client.json":                  false,
		"https://user@client.example/client.json":                     false,
		"https://client.example/client.json#frag":                     false,
		"https://client.example/client.json#":                         false,
		"https://client.example/a/../client.json":                     false,
		"https://client.example/./client.json":                        false,
		"https://client.example/a/%2e%2e/client.json":                 false,
		"https://client.example/a/%2E/client.json":                    false,
		"https://client.example/..":                                   false,
		"https:///client.json":                                        false,
		"https://:443/client.json":                                    false,
		"https://client.example:0/client.json":                        false,
		"https://client.example:99999/client.json":                    false,
		"https://client.example/cl ient.json":                         false,
		"https://client.example/\x00":                                 false,
		"https:client.example/client.json":                            false,
		"https://client.example/" + strings.Repeat("a", maxURLLength): false,
	} {
		_, err := ParseClientID(id)
		if (err == nil) != ok || err != nil && !errors.Is(err, ErrInvalidURL) {
			t.Errorf("ParseClientID(%q) = %v, want ok %v", id, err, ok)
		}
	}
}

const docID = "https://client.example/client.json"

func TestParseDocument(t *testing.T) {
	base := `"client_id":"https://client.example/client.json","client_name":"Course Helper","redirect_uris":["https://client.example/cb"]`
	for name, tc := range map[string]struct {
		body string
		want error
	}{
		"minimal":                   {`{` + base + `}`, nil},
		"unknown members ignored":   {`{` + base + `,"logo_uri":"https://x/l.png","contacts":["a@b"],"extra":{"nested":[1,2]}}`, nil},
		"none":                      {`{` + base + `,"token_endpoint_auth_method":"none"}`, nil},
		"null method":               {`{` + base + `,"token_endpoint_auth_method":null}`, nil},
		"loopback redirects":        {`{` + strings.Replace(base, `"https://client.example/cb"`, `"http://127.0.0.1/cb","http://[::1]:8080/cb"`, 1) + `}`, nil},
		"public jwks":               {`{` + base + `,"jwks":{"keys":[{"kty":"EC","crv":"P-256","x":"a","y":"b"}]}}`, nil},
		"code flow types":           {`{` + base + `,"grant_types":["authorization_code","refresh_token","urn:other"],"response_types":["code"]}`, nil},
		"host case":                 {`{` + strings.Replace(base, `https://client.example/cb`, `https://CLIENT.example/cb`, 1) + `}`, nil},
		"not an object":             {`[]`, ErrInvalidDocument},
		"null":                      {`null`, ErrInvalidDocument},
		"trailing data":             {`{` + base + `} {}`, ErrInvalidDocument},
		"empty":                     {``, ErrInvalidDocument},
		"wrong client_id":           {`{` + strings.Replace(base, "client.json", "other.json", 1) + `}`, ErrClientIDMismatch},
		"client_id case differs":    {`{"CLIENT_ID":"https://client.example/client.json","client_name":"C","redirect_uris":["https://client.example/cb"]}`, ErrClientIDMismatch},
		"client_id not a string":    {`{"client_id":1,"client_name":"C","redirect_uris":["https://client.example/cb"]}`, ErrInvalidDocument},
		"no name":                   {`{"client_id":"https://client.example/client.json","redirect_uris":["https://client.example/cb"]}`, ErrInvalidDocument},
		"blank name":                {`{` + strings.Replace(base, "Course Helper", "  ", 1) + `}`, ErrInvalidDocument},
		"name with a newline":       {`{` + strings.Replace(base, "Course Helper", `Course\nHelper`, 1) + `}`, ErrInvalidDocument},
		"name too long":             {`{` + strings.Replace(base, "Course Helper", strings.Repeat("n", client.MaxName+1), 1) + `}`, ErrInvalidDocument},
		"no redirect_uris":          {`{"client_id":"https://client.example/client.json","client_name":"C"}`, ErrInvalidDocument},
		"redirect_uris not strings": {`{"client_id":"https://client.example/client.json","client_name":"C","redirect_uris":[1]}`, ErrInvalidDocument},
		"foreign https":             {`{` + strings.Replace(base, "https://client.example/cb", "https://evil.example/cb", 1) + `}`, ErrRedirectURI},
		"subdomain":                 {`{` + strings.Replace(base, "https://client.example/cb", "https://a.client.example/cb", 1) + `}`, ErrRedirectURI},
		"http on the host":          {`{` + strings.Replace(base, "https://client.example/cb", "http://client.example/cb", 1) + `}`, ErrRedirectURI},
		"localhost":                 {`{` + strings.Replace(base, "https://client.example/cb", "http://localhost/cb", 1) + `}`, ErrRedirectURI},
		"custom scheme":             {`{` + strings.Replace(base, "https://client.example/cb", "com.example.app:/cb", 1) + `}`, ErrInvalidDocument},
		"javascript":                {`{` + strings.Replace(base, "https://client.example/cb", "javascript:alert(1)", 1) + `}`, ErrInvalidDocument},
		"fragment":                  {`{` + strings.Replace(base, "https://client.example/cb", "https://client.example/cb#x", 1) + `}`, ErrInvalidDocument},
		"relative":                  {`{` + strings.Replace(base, "https://client.example/cb", "/cb", 1) + `}`, ErrInvalidDocument},
		"userinfo in redirect":      {`{` + strings.Replace(base, "https://client.example/cb", "https://evil.example@client.example/cb", 1) + `}`, ErrInvalidDocument},
		"client_secret_post":        {`{` + base + `,"token_endpoint_auth_method":"client_secret_post"}`, ErrSharedSecret},
		"client_secret_basic":       {`{` + base + `,"token_endpoint_auth_method":"client_secret_basic"}`, ErrSharedSecret},
		"client_secret_jwt":         {`{` + base + `,"token_endpoint_auth_method":"client_secret_jwt"}`, ErrSharedSecret},
		"private_key_jwt":           {`{` + base + `,"token_endpoint_auth_method":"private_key_jwt"}`, ErrAuthMethod},
		"method not a string":       {`{` + base + `,"token_endpoint_auth_method":["none"]}`, ErrInvalidDocument},
		"client_secret":             {`{` + base + `,"client_secret":"s3cret"}`, ErrSharedSecret},
		"empty client_secret":       {`{` + base + `,"client_secret":""}`, ErrSharedSecret},
		"client_secret_expires_at":  {`{` + base + `,"client_secret_expires_at":0}`, ErrSharedSecret},
		"private jwk":               {`{` + base + `,"jwks":{"keys":[{"kty":"EC","d":"secret"}]}}`, ErrInvalidDocument},
		"symmetric jwk":             {`{` + base + `,"jwks":{"keys":[{"kty":"oct","k":"secret"}]}}`, ErrInvalidDocument},
		"application_type":          {`{` + base + `,"application_type":"service"}`, ErrInvalidDocument},
		"no code grant":             {`{` + base + `,"grant_types":["client_credentials"]}`, ErrInvalidDocument},
		"no code response":          {`{` + base + `,"response_types":["token"]}`, ErrInvalidDocument},
		"bad scope":                 {`{` + base + `,"scope":"openid \"quoted\""}`, ErrInvalidDocument},
	} {
		doc, err := ParseDocument(docID, []byte(tc.body))
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: error = %v, want %v", name, err, tc.want)
		}
		if err == nil && (doc.ClientID != docID || doc.ClientName != "Course Helper" || doc.ApplicationType != "web") {
			t.Errorf("%s: document = %+v", name, doc)
		}
	}
}

// TestParseDocumentClientName: the name a document gives is shown on the consent page, so it
// follows the rule of every client name (client.CheckName), not one of its own.
func TestParseDocumentClientName(t *testing.T) {
	for name, ok := range map[string]bool{
		"講座ヘルパー":                              true,
		strings.Repeat("n", client.MaxName):   true,
		strings.Repeat("n", client.MaxName+1): false,
		"Good\u202eppA":                       false, // shown as "GoodApp"
		"Good\u2067App":                       false,
		"Good\u200bApp":                       false,
		"Good\u3164App":                       false,
		"Good\tApp":                           false,
	} {
		raw, _ := json.Marshal(name)
		body := `{"client_id":"` + docID + `","client_name":` + string(raw) + `,"redirect_uris":["https://client.example/cb"]}`
		doc, err := ParseDocument(docID, []byte(body))
		switch {
		case ok && (err != nil || doc.ClientName != name):
			t.Errorf("%+q: name %+q, error %v; want it accepted", name, doc.ClientName, err)
		case !ok && !errors.Is(err, ErrInvalidDocument):
			t.Errorf("%+q: error %v, want ErrInvalidDocument", name, err)
		}
	}
}

func TestParseDocumentScope(t *testing.T) {
	body := `{"client_id":"` + docID + `","client_name":"C","redirect_uris":["https://client.example/cb"],"application_type":"native","scope":"openid  courses:read openid"}`
	doc, err := ParseDocument(docID, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(doc.Scope, []string{"openid", "courses:read"}) || doc.ApplicationType != "native" {
		t.Errorf("document = %+v", doc)
	}
	doc, err = ParseDocument(docID, []byte(strings.Replace(body, `"openid  courses:read openid"`, `" "`, 1)))
	if err != nil || doc.Scope != nil {
		t.Errorf("a blank scope: %+v %v, want no narrowing", doc, err)
	}
}

// FuzzDocument: no input panics the parser, and whatever it accepts keeps the rules: the
// client_id is the URL, there is a name, and every redirect URI is on the document's host
// (https) or on loopback (http).
func FuzzDocument(f *testing.F) {
	f.Add(docID, `{"client_id":"`+docID+`","client_name":"C","redirect_uris":["https://client.example/cb"]}`)
	f.Add(docID, `{"client_id":"`+docID+`","client_name":"C","redirect_uris":["http://127.0.0.1:9/cb","http://[::1]/x"],"scope":"openid courses:read"}`)
	f.Add(docID, `{"client_id":"`+docID+`","client_name":"C","redirect_uris":["https://evil.example/cb"]}`)
	f.Add(docID, `{"client_id":"`+docID+`","client_name":"C","redirect_uris":["https://client.example/cb"],"token_endpoint_auth_method":"client_secret_post"}`)
	f.Add(docID, `{"client_id":"`+docID+`","client_name":"C","redirect_uris":["https://client.example/cb"],"client_secret":"x"}`)
	f.Add(docID, `{"client_id":"`+docID+`","client_name":"C","redirect_uris":["https://client.example/cb"],"jwks":{"keys":[{"d":"x"}]}}`)
	f.Add("https://client.example:8443/a?b=c", `{"client_id":"https://client.example:8443/a?b=c","client_name":"C","redirect_uris":["https://client.example:9/cb"]}`)
	f.Add("https://client.example/a/../b", `{"client_id":"https://client.example/a/../b","client_name":"C","redirect_uris":["https://client.example/cb"]}`)
	f.Add(docID, `{"client_id":"`+docID+`","client_name":"\u0000","redirect_uris":["http://127.0.0.1@evil.example/cb"]}`)
	f.Add(docID, `[1,2,3]`)
	f.Add(docID, `{"client_id":null}`)
	f.Fuzz(func(t *testing.T, id, body string) {
		doc, err := ParseDocument(id, []byte(body))
		if err != nil {
			return
		}
		u, err := ParseClientID(id)
		if err != nil {
			t.Fatalf("accepted a document for an invalid client_id %q", id)
		}
		if doc.ClientID != id || strings.TrimSpace(doc.ClientName) == "" || len(doc.RedirectURIs) == 0 {
			t.Fatalf("accepted %+v for %q", doc, id)
		}
		if doc.ApplicationType != "web" && doc.ApplicationType != "native" {
			t.Fatalf("application_type %q", doc.ApplicationType)
		}
		for _, raw := range doc.RedirectURIs {
			r, err := url.Parse(raw)
			if err != nil || r.Fragment != "" || r.User != nil {
				t.Fatalf("accepted redirect URI %q", raw)
			}
			onHost := r.Scheme == "https" && strings.EqualFold(r.Hostname(), u.Hostname())
			loopback := r.Scheme == "http" && (r.Hostname() == "127.0.0.1" || r.Hostname() == "::1")
			if !onHost && !loopback {
				t.Fatalf("accepted redirect URI %q for %q", raw, id)
			}
		}
		var members map[string]json.RawMessage
		if json.Unmarshal([]byte(body), &members) == nil {
			if _, ok := members["client_secret"]; ok {
				t.Fatal("accepted a document with a client_secret")
			}
		}
	})
}
