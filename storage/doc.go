// Package storage defines Proctor's domain storage: the identity provider's store
// (IdentityStore) and the school-data store (SchoolDataStore), the small interfaces they are
// composed of and consumers pick from, the value types they read and write, and the sentinel
// errors every backend returns. Store, both stores with a lifecycle, is what the composition
// root opens and the conformance suites check.
//
// Scoping. School data (courses, enrollments, payments, clients, tokens ...) is always read
// and written for the school carried by the context (school.FromContext); a call whose context
// carries no school fails with school.ErrNoSchool rather than touching every school's rows.
// Member identities (e-mail, name, password hash) are deployment-wide, because one person may
// hold roles at several schools; what a member may do at a school is decided by their roles
// there, which are school data.
//
// Backends live in sub-packages (storage/gormstore for SQLite and PostgreSQL) and must pass
// storage/conformance. gorm and SQL never leak out of a backend: callers see only these types.
//
// Member addresses are stored as NormaliseEmail makes them, and ValidEmail is the one rule
// every entry point (CLI, operator API, invitations, seed files) holds an address to.
// ValidSlug, ValidCurrency and ValidLocale are likewise the one rule for slugs, currency codes
// and a school's locale, for seed files and the operator API (whose schema publishes
// SlugPattern, CurrencyPattern and LocalePattern).
//
// Times are stored and returned in UTC. Money amounts are integers in the currency's minor unit
// (1999 USD is $19.99; 1990 JPY is ¥1990).
package storage
