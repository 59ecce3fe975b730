package keys

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/proctorhq/proctor/storage"
)

func TestParsePublicJWK(t *testing.T) {
	priv := mustKey(t)
	good, err := publicJWK("k1", &priv.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	withPrivate, err := json.Marshal(jose.JSONWebKey{Key: priv, KeyID: "k1", Algorithm: Algorithm, Use: "sig"})
	if err != nil {
		t.Fatal(err)
	}
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	otherCurve, err := json.Marshal(jose.JSONWebKey{Key: &p384.PublicKey, KeyID: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	otherKID, err := publicJWK("k2", &priv.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		jwk  []byte
		ok   bool
	}{
		{"public P-256", good, true},
		{"private material", withPrivate, false},
		{"P-384", otherCurve, false},
		{"kid of another row", otherKID, false},
		{"not JSON", []byte("{"), false},
		{"empty", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, err := parsePublicJWK(storage.SigningKey{KID: "k1", Algorithm: Algorithm, PublicJWK: c.jwk})
			if (err == nil) != c.ok {
				t.Fatalf("err = %v, want ok %t", err, c.ok)
			}
			if c.ok && (k.KeyID != "k1" || k.Algorithm != "ES256" || k.Use != "sig" || !k.IsPublic()) {
				t.Fatalf("parsed %+v", k)
			}
		})
	}
}

// TestJWKSHasNoPrivateMaterial reads the JWKS as JSON, as a client would, and checks each
// member: EC P-256 public keys with kid, use and alg, and never "d".
func TestJWKSHasNoPrivateMaterial(t *testing.T) {
	st, ctx := openStore(t)
	m := NewManager(st, testSecret(1), Options{})
	must(t, m.Rotate, ctx) // two keys published: current and previous
	must(t, m.Rotate, ctx)
	set := must(t, m.PublicKeys, ctx)
	fromValue, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	m.JWKSHandler().ServeHTTP(rec, httptest.NewRequestWithContext(ctx, http.MethodGet, "/jwks.json", nil))
	for name, body := range map[string][]byte{"PublicKeys": fromValue, "handler": rec.Body.Bytes()} {
		var doc struct {
			Keys []map[string]any `json:"keys"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(doc.Keys) != 2 {
			t.Fatalf("%s: %d keys, want 2", name, len(doc.Keys))
		}
		for _, k := range doc.Keys {
			if _, ok := k["d"]; ok {
				t.Fatalf("%s: private member d published: %s", name, body)
			}
			for member, want := range map[string]string{"kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256"} {
				if k[member] != want {
					t.Errorf("%s: %s = %v, want %s", name, member, k[member], want)
				}
			}
			for _, member := range []string{"kid", "x", "y"} {
				if s, _ := k[member].(string); s == "" {
					t.Errorf("%s: %s missing", name, member)
				}
			}
		}
	}
	// The stored public JWK holds no private member either.
	rows := must(t, st.ListSigningKeys, ctx)
	for _, r := range rows {
		if strings.Contains(string(r.PublicJWK), `"d"`) {
			t.Fatalf("stored public JWK of %s has d", r.KID)
		}
	}
}

func TestJWKSHandler(t *testing.T) {
	st, ctx := openStore(t)
	m := NewManager(st, testSecret(1), Options{CacheTTL: 45 * time.Second})
	cur := must(t, m.Current, ctx)
	h := m.JWKSHandler()
	serve := func(ctx context.Context, method string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, method, "/.well-known/jwks.json", nil))
		return rec
	}

	rec := serve(ctx, http.MethodGet)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET: status %d: %s", rec.Code, rec.Body)
	}
	for name, want := range map[string]string{
		"Content-Type":                "application/jwk-set+json",
		"Cache-Control":               "public, max-age=45",
		"Access-Control-Allow-Origin": "*",
	} {
		if got := rec.Header().Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(rec.Body.Bytes(), &set); err != nil {
		t.Fatal(err)
	}
	if got := kids(set); !equalStrings(got, []string{cur.KID}) {
		t.Fatalf("kids %v, want [%s]", got, cur.KID)
	}
	signAndVerify(t, cur, set)

	head := serve(ctx, http.MethodHead)
	if head.Code != http.StatusOK || head.Body.Len() != 0 || head.Header().Get("Content-Length") != rec.Header().Get("Content-Length") {
		t.Fatalf("HEAD: status %d, body %d bytes, length %q", head.Code, head.Body.Len(), head.Header().Get("Content-Length"))
	}
	if pre := serve(ctx, http.MethodOptions); pre.Code != http.StatusNoContent || pre.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("OPTIONS: status %d, headers %v", pre.Code, pre.Header())
	}
	if post := serve(ctx, http.MethodPost); post.Code != http.StatusMethodNotAllowed || post.Header().Get("Allow") == "" {
		t.Fatalf("POST: status %d, Allow %q", post.Code, post.Header().Get("Allow"))
	}
	if none := serve(context.Background(), http.MethodGet); none.Code != http.StatusNotFound {
		t.Fatalf("no school: status %d", none.Code)
	}

	// A store failure is a bare 500 with no detail.
	broken := NewManager(st, testSecret(2), Options{})
	rec = httptest.NewRecorder()
	broken.JWKSHandler().ServeHTTP(rec, httptest.NewRequestWithContext(ctx, http.MethodGet, "/", nil))
	if rec.Code != http.StatusInternalServerError || strings.Contains(rec.Body.String(), "decrypt") {
		t.Fatalf("broken: status %d body %s", rec.Code, rec.Body)
	}
}

func TestJWKSHandlerDefaultMaxAge(t *testing.T) {
	st, ctx := openStore(t)
	rec := httptest.NewRecorder()
	NewManager(st, testSecret(1), Options{}).JWKSHandler().ServeHTTP(rec, httptest.NewRequestWithContext(ctx, http.MethodGet, "/", nil))
	if got := rec.Header().Get("Cache-Control"); got != "public, max-age=30" {
		t.Fatalf("Cache-Control = %q", got)
	}
}
