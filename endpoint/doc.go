// Package endpoint holds the paths of the authorization server's endpoints and metadata documents,
// which other packages link to: the discovery documents list them, the operator API's OpenAPI
// document names them in its security scheme, and tests and the load generator call them.
//
// It imports nothing, so that a package can name an endpoint without depending on the package
// that serves it (and on fosite with it).
package endpoint
