package graphql

import (
	"net/http/httptest"
	"testing"

	gql "github.com/graph-gophers/graphql-go"

	"github.com/proctorhq/proctor/edge"
)

// TestWriteResponseAsMarshalled: a result written around graphql-go's data is byte for byte what
// marshalling the response writes, strings that encoding/json escapes included.
func TestWriteResponseAsMarshalled(t *testing.T) {
	schema := gql.MustParseSchema(`schema { query: Q } type Q { s: String! }`, &textResolver{})
	resp := schema.Exec(t.Context(), `{ s }`, "", nil)
	if len(resp.Errors) != 0 {
		t.Fatal(resp.Errors)
	}
	fast, marshalled := httptest.NewRecorder(), httptest.NewRecorder()
	writeResponse(fast, resp)
	edge.WriteJSON(marshalled, 200, resp)
	if got, want := fast.Body.String(), marshalled.Body.String(); got != want {
		t.Errorf("written %q, marshalled %q", got, want)
	}
	if got := fast.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
}

type textResolver struct{}

func (textResolver) S() string { return "<b>&\u2028\"é\"\n</b>" }
