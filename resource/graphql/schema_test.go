package graphql

import "testing"

// TestSchemaBinds parses the schema with the resolvers: graphql-go checks every field, argument
// and enum against the Go types, so New cannot panic in a build whose tests passed.
func TestSchemaBinds(t *testing.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("schema does not bind: %v", r)
		}
	}()
	New(Deps{})
}
