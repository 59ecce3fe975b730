package edge

import "net/http"

// PublicRead starts the answer to a request for a document any origin may read (the discovery
// documents, the JWKS, the OpenAPI document, the guides for agents): such a document carries no
// credentials and browser-based clients read it too. It allows every origin and answers a CORS
// preflight (OPTIONS) itself with 204; it reports whether the request still needs its answer.
func PublicRead(w http.ResponseWriter, r *http.Request) bool {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	if r.Method != http.MethodOptions {
		return true
	}
	h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
	return false
}

// WriteNoSchool answers a request that reached a school's handler without a school in its
// context: 404, as for a host no school is served at.
func WriteNoSchool(w http.ResponseWriter) {
	WriteError(w, http.StatusNotFound, "not_found", "No school is served at this host.")
}
