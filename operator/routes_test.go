package operator

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

// TestRouteTable: every operation of the route table has its handler, so that none is declared
// and then neither served nor documented.
func TestRouteTable(t *testing.T) {
	tn := schools.School(t, schools.File(1, "north", "Northwind", "https://north.example"))
	_, body := fetchDocument(t, tn)
	doc, err := openapi3.NewLoader().LoadFromData(body)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	served := map[string]bool{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			served[op.OperationID] = true
		}
	}
	for id := range operations {
		if !served[id] {
			t.Errorf("%s is in the route table but not served", id)
		}
	}
	if len(served) != len(operations) {
		t.Errorf("%d operations served, %d in the route table", len(served), len(operations))
	}
}
