package edge

import (
	"encoding/json"
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
