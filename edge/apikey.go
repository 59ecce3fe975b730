package edge

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// RequireAPIKey lets a request through to next only when it carries `Authorization: Bearer
// <key>`; otherwise it answers 401 with a Bearer challenge in realm. The comparison takes the
// same time whatever the presented key shares with the real one. An empty key refuses
// everything, so a handler mounted with an unset key is closed, never open.
func RequireAPIKey(key []byte, realm string, next http.Handler) http.Handler {
	challenge := `Bearer realm="` + realm + `"`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if len(key) == 0 || subtle.ConstantTimeCompare([]byte(got), key) != 1 {
			w.Header().Set("WWW-Authenticate", challenge)
			WriteError(w, http.StatusUnauthorized, "invalid_client", "The internal API key is missing or wrong.")
			return
		}
		next.ServeHTTP(w, r)
	})
}
