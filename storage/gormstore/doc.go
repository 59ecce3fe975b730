// Package gormstore is the storage.Store backend on gorm, for SQLite (the embedded default,
// through the pure-Go glebarez driver) and PostgreSQL (production, through pgx).
//
// Two stores, one value. A Store implements both storage.IdentityStore and
// storage.SchoolDataStore over one database, and hands out no separate value for either: the
// two share its connections and its transactions (a transaction BeginTx puts into the context
// carries both stores' calls, and ImportSchoolData writes members and school data at once), so
// a value per store would be the same handle under another name. Consumers see one or the other
// because each declares the few methods it calls.
//
// It owns the database schema: versioned SQL migrations (migrations/NNN_name.sql, written once in
// PostgreSQL and translated to SQLite by migrate.go), the unexported gorm row structs that mirror
// them (models.go), and the mapping of driver errors onto storage's sentinels (errors.go). No gorm
// type or driver error leaves the package.
//
// School scoping lives in one place (scope.go): every school-scoped method obtains the school from
// the context there and every query it makes is filtered by that school, so a row of another
// school is indistinguishable from a missing one (storage.ErrNotFound).
//
// Transactions. BeginTx puts a transaction into the context it returns, and every method reaches
// the database through Store.conn (tx.go), which uses that transaction when the context carries
// one; methods that need a transaction of their own (inTx) run inside the caller's instead.
//
// Concurrency. Read-modify-write methods (UpdateMember, UpdateLectureProgress, UpdateClient) run
// in one transaction holding the row: SELECT ... FOR UPDATE on PostgreSQL; on SQLite every
// transaction begins IMMEDIATE (the DSN's _txlock), which already makes it the only writer.
// Races on OAuth grants are decided by conditional UPDATEs (a code is used once, a pair is first
// used once) and by locking a grant's token pairs in id order (a refresh, a revocation); every
// statement that locks several pairs takes them in that order, so lockers queue rather than
// deadlock (oauth_grants.go). The token endpoint's two writes, ExchangeCode and RefreshPair, are
// one statement each on PostgreSQL (token_endpoint.go). The mail outbox's claims are one UPDATE ... WHERE id IN (SELECT ... FOR
// UPDATE SKIP LOCKED) RETURNING on PostgreSQL, so concurrent workers take disjoint batches
// without waiting; on SQLite the statement holds the write lock (mail_outbox.go).
//
// Curriculum cache. Each Store keeps the curricula (sections and lectures) it reads in memory,
// by school and course, each with the courses.curriculum_version it was read at, within a bound
// on the rows held (Config.CurriculumCacheRows). Every read checks the current versions first,
// in one statement, so a write through another Store, in another process, is seen at the next
// read; every write to sections or lectures bumps the version in its own transaction
// (touchCurricula), and so must an edit made in plain SQL. Reads inside a caller's transaction
// bypass the cache (curricula.go; docs/architecture.md).
//
// Account store. The same Store implements account.Store (declared in account/accountstore):
// one-time links and members' security events in tables of their own, and the member's
// sessions and connected applications over login_sessions and oauth_token_pairs
// (account_*.go). A link is consumed by one conditional UPDATE, like a code.
//
// Times are written in UTC truncated to microseconds, the precision PostgreSQL keeps, so that a
// value reads back equal whichever database holds it.
package gormstore
