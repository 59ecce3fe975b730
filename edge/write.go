package edge

import (
	"encoding/json"
	"errors"
	"net/http"
)

// WriteJSON writes v as a JSON response with the given status. Responses that may carry
// credentials set Cache-Control themselves before calling it.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		// Only a programming error (an unmarshalable type) gets here: answer plainly.
		http.Error(w, `{"error":"server_error"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// ErrorBody is the JSON error shape of RFC 6749 section 5.2, used by every non-GraphQL JSON
// endpoint that has no more specific format.
type ErrorBody struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

// WriteError writes an ErrorBody.
func WriteError(w http.ResponseWriter, status int, code, description string) {
	w.Header().Set("Cache-Control", "no-store")
	WriteJSON(w, status, ErrorBody{Error: code, Description: description})
}

// TooLarge reports whether reading a request body failed because it passed the server's body
// limit (http.max_body_bytes, applied to every public request by package server). Handlers answer
// such a request 413, as the limit promises, not 400 as for a body that is merely unreadable.
func TooLarge(err error) bool {
	var tooLarge *http.MaxBytesError
	return errors.As(err, &tooLarge)
}

// WriteTooLarge answers a body over the limit (package server closes the connection after any
// 413, see its limitBody).
func WriteTooLarge(w http.ResponseWriter) {
	WriteError(w, http.StatusRequestEntityTooLarge, "invalid_request", "The request body is too large.")
}

// WriteBodyError answers a request whose body could not be read (err from ParseForm, or from a
// read through http.MaxBytesReader): 413 with WriteTooLarge when it passed the limit, otherwise
// whatever bad writes, the 400 in the shape of the caller's own endpoint.
func WriteBodyError(w http.ResponseWriter, err error, bad func()) {
	if TooLarge(err) {
		WriteTooLarge(w)
		return
	}
	bad()
}
