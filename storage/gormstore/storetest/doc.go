// Package storetest opens migrated gormstore databases for the tests of other packages: SQLite
// in a temporary directory always, and PostgreSQL in a schema of its own when
// PROCTOR_TEST_POSTGRES_DSN is set (CI sets it), dropped when the test ends.
//
// It also grows a PostgreSQL token-pair table to millions of rows (PairFill) for the benchmarks
// that show a read or write of oauth_token_pairs costs the same at any size, the verifier's and
// the token endpoint's, so that both measure over the same filler, in the same setting
// (PairBench: the school, client and member the filler belongs to).
package storetest
