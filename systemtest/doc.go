// Package systemtest runs whole `proctor serve` processes, built from this module, against
// PostgreSQL and checks what only whole processes can show:
//
//   - TestReplicas: two servers on one database and the same school files serve one school
//     interchangeably. A login made on one is honoured on the other, a code issued by one is
//     exchanged at the other, a refresh rotation started on one is committed by the other, a
//     revocation on one is refused by the other at once, and a signing-key rotation made with
//     `proctor keys rotate` reaches the other's JWKS and ID tokens within the key cache time.
//   - TestDatabaseOutage: with PostgreSQL cut off (a TCP proxy in the test is closed), the token
//     endpoint, /mcp, the Member API, the operator REST API and /readyz answer 503 without
//     internal detail and nothing answers 500; when the proxy comes back on the same port, the
//     service recovers without a restart.
//   - TestStartupWaitsForTheDatabase, TestStartupGivesUp: `proctor serve --migrate` started while
//     the database address refuses connections is alive (/healthz 200) and not ready (/readyz
//     503), logs each attempt and listens on no public port; once the database is there it
//     migrates and serves. With a short database.startup_timeout it exits non-zero saying why.
//   - TestKillDuringLoad: a server killed with SIGKILL in the middle of code exchanges,
//     refreshes and revocations loses nothing a client was given and keeps nothing half done:
//     after a restart every token and code the clients received is in the state the protocol
//     promises, and `proctor doctor` finds the database consistent.
//   - TestGracefulShutdown: SIGTERM closes the public listener at once, reports not ready,
//     lets the requests already accepted finish with their normal answers, and exits 0 within
//     http.shutdown_grace.
//
// No test asserts a speed: every wait is a poll bounded in minutes, so that a busy machine
// cannot fail a server that behaves.
//
// Why whole processes: in-process tests share one heap, one key cache, one connection pool and
// one clock, so they cannot show that nothing a request needs lives only in one process, what a
// dropped database connection or a lost process does to the pool and to half-finished
// transactions, or how the binary handles signals. Here the binary is built once (TestMain),
// configured through its files, set up and inspected with its own commands (`migrate`, `seed`,
// `clients create`, `keys rotate`, `doctor`) and driven only over HTTP on loopback addresses,
// through the member browser and app of bench/flow that `proctor bench` drives it with too.
//
// The tests need PostgreSQL: set PROCTOR_TEST_POSTGRES_DSN (CI sets it to
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable); without it they skip. Each test
// gets a schema of its own, dropped at the end. Run them with
//
//	PROCTOR_TEST_POSTGRES_DSN=postgres://postgres@127.0.0.1:5432/test?sslmode=disable \
//	  go test ./systemtest/
//
// docs/reliability.md describes each test, the bounds it asserts and what it found.
package systemtest
