// Package bench is `proctor bench`: a load generator shipped in the binary that measures a
// whole Proctor (authorization server, Member API, MCP endpoint) on this machine and reports
// throughput, latency and the server's resource use per scenario.
//
// A run (Run) goes like this:
//
//  1. The target host, and the PostgreSQL DSN when there is one, must be loopback
//     (CheckLoopback: 127.0.0.0/8 or ::1, names resolving only there); every connection is
//     checked again as it is dialled. Nothing is created or sent before that check.
//  2. A temporary directory gets a server file, a tenant file for one school and a secret,
//     read back through config.Load; the database is a SQLite file there or a schema of its own
//     on PostgreSQL (seed.go).
//  3. The school is filled through the code paths operators use: migrations, the school row,
//     members, courses, enrollments and progress applied as a seed fixture, and a public member
//     client made by the rules of `proctor clients create`.
//  4. `proctor serve` starts from this binary as a child process (child.go), or the same server
//     in this process for tests; the child's CPU seconds and peak RSS come from
//     /proc/<pid>/stat and /proc/<pid>/status (VmHWM, reset before each scenario).
//  5. Two baselines are measured with the same runner and client (baseline.go): a bare net/http
//     handler and a single-row INSERT on the same database.
//  6. Every worker signs in through the login form, then each scenario (scenarios.go) mints what
//     it needs untimed, warms up, and runs for the duration or the request cap (runner.go).
//  7. The report (report.go) is a table, JSON and an SVG chart; any failed request fails the run.
//
// The scenarios drive the server over HTTP exactly as clients do: the consent form with its
// csrf_token, PKCE S256, the resource parameter, iss and state checked on the redirect, bearer
// tokens at UserInfo, /member/graphql and /mcp.
//
// Every loop is bounded in time (MaxDuration per scenario, fixed timeouts for minting, start-up
// and shutdown) and, where asked, in count, so a run always ends by itself; the child server is
// stopped with SIGTERM and, on Linux, also when this process dies.
//
// Extending: a soak mode (hours at a steady rate, watching throughput and the server's memory
// drift) would reuse RunLoad with its Bounds.Every/OnWindow hook and target.usage for periodic
// samples; it is not built.
package bench
