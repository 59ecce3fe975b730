//go:build tools

package graphql

// gqlgen generates exec_gen.go (see the go:generate line in doc.go); importing it here keeps its
// version pinned in go.mod, so that generating again gives the same code.
import _ "github.com/99designs/gqlgen"
