// Package bench is `proctor bench`: a load generator shipped in the binary that measures a
// whole Proctor (authorization server, Member API, MCP endpoint) on this machine and reports
// throughput, latency and the server's resource use per scenario.
//
// A run (Run) goes like this:
//
//  1. The target host, and the PostgreSQL DSN when there is one, must be loopback
//     (CheckLoopback: 127.0.0.0/8 or ::1, names resolving only there); every connection is
//     checked again as it is dialled. Nothing is created or sent before that check.
//  2. A temporary directory gets a server file, a school file for one school and a secret,
//     read back through config.Load; the database is a SQLite file there or a schema of its own
//     on PostgreSQL (seed.go).
//  3. The school is filled through the code paths operators use: migrations, the school row,
//     members, courses, enrollments and progress through the import `proctor seed` uses, and a
//     public member client made by the rules of `proctor clients create`.
//  4. `proctor serve` starts from this binary as a child process (child.go), or the same server
//     in this process (Deps.Serve) for tests; the child's CPU seconds and peak RSS come from
//     /proc/<pid>/stat and /proc/<pid>/status (VmHWM, reset before each scenario).
//  5. Two baselines are measured with the same runner and client (baseline.go): a bare net/http
//     handler and a single-row INSERT on the same database.
//  6. Every worker signs in through the login form, then each scenario (scenarios.go) mints what
//     it needs untimed, warms up, and runs for the duration or the request cap (runner.go).
//  7. The report (report.go) is a table, JSON and an SVG chart; any failed request fails the run.
//
// Bench imports no part of the server. The composition root (cmd/proctor) hands a run its
// Deps: a function that opens the database as a Store (the storage API the school is seeded
// through), the server to run in this process, and the client rules. The server it measures
// is reached over HTTP only, at the public paths any client uses (paths.go).
//
// The scenarios drive the server over HTTP exactly as clients do (package flow, which the
// process tests of systemtest drive it with too): the consent form with its csrf_token, PKCE
// S256, the resource parameter, iss and state checked on the redirect, bearer tokens at
// UserInfo, /member/graphql and /mcp.
//
// A soak (RunSoak, `proctor bench --soak`, soak.go) replaces steps 5 to 7 with one long run:
// every worker goes round a cycle that mints what it consumes (the authcode flow, then userinfo,
// graphql-viewer and mcp-call with that access token, a refresh, a use of the new token, and now
// and then a revocation or a sign-out and sign-in), first unpaced for a short while to find its
// peak rate, then paced (Bounds.Rate) at SoakLoad (70%) of that rate for minutes. The school's
// tokens live a minute and its codes ten seconds, so that the server's purge job deletes rows
// during the run. Each window (Bounds.Every/OnWindow) records the rate, errors, p50/p99, the
// server's resident memory (VmRSS) and the row counts of the token, code, PKCE, OpenID Connect
// and login-session tables, read through a connection of the bench's own; judgeSoak
// (soak_verdict.go) then compares the last third of the windows with the middle third.
//
// Every loop is bounded in time (MaxDuration per scenario, MaxSoakDuration for a soak, fixed
// timeouts for minting, start-up, row counts and shutdown) and, where asked, in count, so a run
// always ends by itself; the child server is stopped with SIGTERM and, on Linux, also when this
// process dies.
package bench
