// Package endpoint holds the paths of the authorization server's and the resource servers'
// endpoints and metadata documents, and of the content-named static assets (AssetName), which
// other packages link to: the discovery documents list
// them, the operator API's OpenAPI document names them in its security scheme, the middleware
// marks the protected ones, and tests and the load generator call them.
//
// It imports nothing, so that a package can name an endpoint without depending on the package
// that serves it (and on fosite with it).
package endpoint
