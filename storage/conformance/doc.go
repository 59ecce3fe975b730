// Package conformance holds the two test suites every storage.Store backend must pass, one for
// each of its stores: RunIdentityTests (storage.IdentityStore and the account state declared
// beside it) and RunSchoolDataTests (storage.SchoolDataStore), each called from a backend's own
// tests with a function that returns a fresh, migrated, empty store.
//
// It owns the behaviour the storage package documents but cannot enforce by types: ErrNotFound
// and ErrAlreadyExists where they apply, school.ErrNoSchool for school-scoped calls without a
// school, isolation between schools, paging, read-modify-write under concurrency,
// ImportSchoolData's round trip, idempotency and all-or-nothing behaviour, transactions carried
// in the context, and the OAuth races the database must decide: a code used twice at once, a
// pair first used many times at once, a refresh racing a revocation of its grant; and the Member
// API's reads (member*.go): which payments a member sees and in what order (the spec's payments
// rules), consulting meetings without their members, notifications marked read once; and the
// account store a backend implements beside storage.Store (account.go): one-time links (one of
// many concurrent consumers wins), a member's sessions, connected applications and security
// events, each kept to its school; and the mail outbox (mail_outbox.go: a store must also
// implement mail.Outbox): claims that honour due times and leases and never overlap,
// enqueueing in a transaction, payloads erased once done, the purge of old entries. It reads
// only through those interfaces, so what a backend keeps that they cannot read is checked by
// the backend's own tests.
package conformance
