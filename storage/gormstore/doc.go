// Package gormstore is the storage.Store backend on gorm, for SQLite (the embedded default,
// through the pure-Go glebarez driver) and PostgreSQL (production, through pgx).
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
// Concurrency. Read-modify-write methods (UpdateMember, UpdateLectureProgress) run in one
// transaction holding the row: SELECT ... FOR UPDATE on PostgreSQL; on SQLite every transaction
// begins IMMEDIATE (the DSN's _txlock), which already makes it the only writer.
//
// Times are written in UTC truncated to microseconds, the precision PostgreSQL keeps, so that a
// value reads back equal whichever database holds it.
package gormstore
