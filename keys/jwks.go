package keys

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// JWKSContentType is the media type of a JWK Set (RFC 7517 section 8.5.1).
const JWKSContentType = "application/jwk-set+json"

// PublicKeys returns the context school's published keys as a JWK Set: the current key and
// the one before it, so that tokens signed just before a rotation still verify. Each entry
// carries kid, use "sig" and alg "ES256", and only public material.
func (m *Manager) PublicKeys(ctx context.Context) (jose.JSONWebKeySet, error) {
	s, err := m.snapshot(ctx)
	if err != nil {
		return jose.JSONWebKeySet{}, err
	}
	// A copy of the slice, so a caller appending or editing entries cannot change the cache.
	return jose.JSONWebKeySet{Keys: slices.Clone(s.jwks.Keys)}, nil
}

// JWKSHandler serves the request's school's PublicKeys at its jwks_uri. The body comes
// encoded from the cache, so a request costs no query and no encoding. Clients may cache it
// for CacheTTL, the same bound within which replicas agree on the keys. It is readable from
// any origin: browser-based clients verify ID tokens too, and a JWKS holds nothing secret.
func (m *Manager) JWKSHandler() http.Handler {
	maxAge := "public, max-age=" + strconv.Itoa(int(m.ttl.Seconds()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !edge.PublicRead(w, r) {
			return
		}
		h := w.Header()
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD, OPTIONS")
			edge.WriteError(w, http.StatusMethodNotAllowed, "invalid_request", "Use GET.")
			return
		}
		t, err := school.FromContext(r.Context())
		if err != nil {
			edge.WriteNoSchool(w)
			return
		}
		s, err := m.snapshot(r.Context())
		if err != nil {
			m.log.ErrorContext(r.Context(), "jwks: load signing keys",
				"school_id", t.SchoolID, "request_id", edge.FromContext(r.Context()).ID, "err", err)
			edge.WriteError(w, http.StatusInternalServerError, "server_error", "")
			return
		}
		h.Set("Content-Type", JWKSContentType)
		h.Set("Cache-Control", maxAge)
		h.Set("Content-Length", strconv.Itoa(len(s.jwksJSON)))
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(s.jwksJSON)
		}
	})
}

// publicJWK encodes the public half of a key as the JWK stored beside it.
func publicJWK(kid string, pub *ecdsa.PublicKey) ([]byte, error) {
	b, err := json.Marshal(jose.JSONWebKey{Key: pub, KeyID: kid, Algorithm: Algorithm, Use: "sig"})
	if err != nil {
		return nil, fmt.Errorf("keys: encode public key: %w", err)
	}
	return b, nil
}

// parsePublicJWK reads a stored public JWK and rebuilds the published entry from it. kid, alg
// and use are taken from the row and our constants rather than from the stored JSON, and the
// key must be a public P-256 key, so a damaged or hand-edited row cannot publish private
// material or a key of another kind.
func parsePublicJWK(r storage.SigningKey) (jose.JSONWebKey, error) {
	var stored jose.JSONWebKey
	if err := stored.UnmarshalJSON(r.PublicJWK); err != nil {
		return jose.JSONWebKey{}, fmt.Errorf("keys: key %s: stored public JWK: %w", r.KID, err)
	}
	if stored.KeyID != "" && stored.KeyID != r.KID {
		return jose.JSONWebKey{}, fmt.Errorf("keys: key %s: stored public JWK names kid %q", r.KID, stored.KeyID)
	}
	pub, ok := stored.Key.(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P256() {
		return jose.JSONWebKey{}, fmt.Errorf("keys: key %s: stored public JWK is not a public P-256 key", r.KID)
	}
	return jose.JSONWebKey{Key: pub, KeyID: r.KID, Algorithm: Algorithm, Use: "sig"}, nil
}

func encodeJWKS(set jose.JSONWebKeySet) ([]byte, error) {
	b, err := json.Marshal(set)
	if err != nil {
		return nil, fmt.Errorf("keys: encode JWKS: %w", err)
	}
	return append(b, '\n'), nil
}
