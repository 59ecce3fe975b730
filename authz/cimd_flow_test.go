package authz_test

import (
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proctorhq/proctor/authz/cimd"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/server/servertest"
)

// TestMetadataDocumentFlow: a client identified by a Client ID Metadata Document on a local
// HTTPS server authorizes at school A (which accepts documents from 127.0.0.1 with the
// development address policy), exchanges its code and refreshes; its scopes stop at reads
// while it is unreviewed; broken documents and hosts the school does not accept give pages,
// never redirects.
func TestMetadataDocumentFlow(t *testing.T) {
	var fetches atomic.Int64
	docs := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		id := "https://" + r.Host + r.URL.Path
		doc := map[string]any{
			"client_id": id, "client_name": "Course Helper", "redirect_uris": []string{redirectURI},
			"grant_types": []string{"authorization_code", "refresh_token"}, "token_endpoint_auth_method": "none",
		}
		switch r.URL.Path {
		case "/client.json":
		case "/broken.json":
			doc["client_id"] = "https://" + r.Host + "/someone-else.json"
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=600")
		_ = json.NewEncoder(w).Encode(doc)
	}))
	t.Cleanup(docs.Close)
	pool := x509.NewCertPool()
	pool.AddCert(docs.Certificate())
	policy := config.CIMD{AllowedHosts: []string{"127.0.0.1"}, AllowPrivateNetworks: true, CacheMin: time.Minute, CacheMax: time.Hour}
	e := newEnv(t, "sqlite", withCIMD(policy, cimd.New(nil, cimd.Options{RootCAs: pool})))
	clientID := docs.URL + "/client.json"
	docHost := strings.TrimPrefix(docs.URL, "https://")

	t.Run("discovery advertises documents", func(t *testing.T) {
		resp, err := http.Get(e.url(e.a, "/.well-known/oauth-authorization-server"))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		if m["client_id_metadata_document_supported"] != true {
			t.Errorf("client_id_metadata_document_supported = %v", m["client_id_metadata_document_supported"])
		}
	})

	t.Run("authorize, exchange, refresh", func(t *testing.T) {
		b := e.signedIn(e.a, operatorEmail)
		p := servertest.NewPKCE()
		authURL := authURL(e.a, clientID, p, "openid", "courses:read")
		page := b.Get(authURL)
		if page.Status != http.StatusOK {
			t.Fatalf("consent page: %d\n%s", page.Status, page.Body)
		}
		if !strings.Contains(page.Body, docHost) || !strings.Contains(page.Body, "Course Helper") {
			t.Errorf("the consent page does not show the document's host %s and name:\n%s", docHost, page.Body)
		}
		loc := b.consent(authURL, "approve")
		code := loc.Query().Get("code")
		if code == "" || loc.Query().Get("iss") != e.a.Origin {
			t.Fatalf("redirect %s", loc)
		}
		res, tr := e.Exchange(e.a, oauthClient(clientID), code, p)
		if res.Status != http.StatusOK || tr.AccessToken == "" || !strings.Contains(tr.Scope, "courses:read") {
			t.Fatalf("exchange: %d %+v", res.Status, tr)
		}
		if res, r := e.Refresh(e.a, oauthClient(clientID), tr.RefreshToken); res.Status != http.StatusOK || r.AccessToken == "" {
			t.Fatalf("refresh: %d %+v", res.Status, r)
		}
	})

	t.Run("an unreviewed client cannot ask for a write scope", func(t *testing.T) {
		b := e.signedIn(e.a, operatorEmail)
		q := servertest.AuthorizeParams(e.a, oauthClient(clientID), servertest.NewPKCE(), "courses:write")
		resp := b.authorize(e.a, q)
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if loc == nil || !strings.HasPrefix(loc.String(), redirectURI) || loc.Query().Get("error") != "invalid_scope" {
			t.Fatalf("courses:write: %d %q, want a redirect with invalid_scope\n%s", resp.Status, resp.Header.Get("Location"), resp.Body)
		}
	})

	t.Run("the document was fetched once", func(t *testing.T) {
		if n := fetches.Load(); n != 1 {
			t.Errorf("%d fetches of a document cached for ten minutes", n)
		}
	})

	t.Run("a broken document is explained on a page", func(t *testing.T) {
		b := e.signedIn(e.a, operatorEmail)
		q := servertest.AuthorizeParams(e.a, oauthClient(docs.URL+"/broken.json"), servertest.NewPKCE(), "courses:read")
		resp := b.authorize(e.a, q)
		if resp.Status < 400 || resp.Header.Get("Location") != "" || !strings.Contains(resp.Body, "does not list this client_id") {
			t.Fatalf("%d Location=%q: want a page saying why\n%s", resp.Status, resp.Header.Get("Location"), resp.Body)
		}
		res, tr := e.Exchange(e.a, oauthClient(docs.URL+"/broken.json"), "whatever", servertest.NewPKCE())
		if res.Status != http.StatusUnauthorized || tr.Error != "invalid_client" {
			t.Errorf("token endpoint with a broken document: %d %+v", res.Status, tr)
		}
	})

	t.Run("a host the school does not accept is an unknown client", func(t *testing.T) {
		before := fetches.Load()
		for _, tc := range []struct {
			school string
			id     string
		}{
			{"A, other host", strings.Replace(clientID, "127.0.0.1", "localhost", 1)},
			{"B, no policy", clientID},
		} {
			sch := e.a
			if strings.HasPrefix(tc.school, "B") {
				sch = e.b
			}
			// The client is looked up before the member is asked to sign in.
			b := e.browser()
			q := servertest.AuthorizeParams(sch, oauthClient(tc.id), servertest.NewPKCE(), "openid")
			resp := b.authorize(sch, q)
			if resp.Status < 400 || resp.Header.Get("Location") != "" || !strings.Contains(resp.Body, "does not exist") || strings.Contains(resp.Body, "metadata document") {
				t.Errorf("%s: %d Location=%q: want the unknown-client page\n%s", tc.school, resp.Status, resp.Header.Get("Location"), resp.Body)
			}
		}
		if fetches.Load() != before {
			t.Error("a document was fetched for a school that does not accept its host")
		}
	})
}
