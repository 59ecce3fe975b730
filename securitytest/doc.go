// Package securitytest is a security suite that runs against a whole Proctor (package
// server/servertest): every public and internal route, on SQLite and, when
// PROCTOR_TEST_POSTGRES_DSN is set, on PostgreSQL.
//
// It checks school isolation on every route (the server's own list of routes, Server.Routes, is
// compared with a table of cases, so a route added without a case fails the suite), open
// redirects, CSRF on every form the server renders, framing and cookie attributes on every
// answer, that no secret reaches the log, that secrets are compared in constant time (a scan
// of the sources), the limits on slow and oversized requests, the Client ID Metadata
// Document fetcher's address guard, and that a school whose base_url is https serves nothing
// with a member's credentials over plain http (directly or through a trusted proxy saying so). docs/security.md describes each check and how to run the
// suite.
//
// The package holds tests only.
package securitytest
