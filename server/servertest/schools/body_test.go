package schools_test

import (
	"testing"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

// DecodeJSON reads a document into the type asked for.
func TestDecodeJSON(t *testing.T) {
	got := schools.DecodeJSON[map[string][]int](t, []byte(`{"a":[1,2]}`))
	if len(got["a"]) != 2 || got["a"][1] != 2 {
		t.Errorf("%v", got)
	}
}
