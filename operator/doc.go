// Package operator will hold the operator REST API under /api/v1/, one file per resource
// family, each operation gated by one scope of the catalogue (package scope). It has no code
// yet.
package operator
