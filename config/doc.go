// Package config loads Proctor's configuration into typed, validated structs.
//
// There are two kinds of file: one server file (listeners, database, secret, logging, proxies,
// HTTP limits) and one YAML file per school in the schools directory. Every server key can be
// overridden by an environment variable named PROCTOR_ plus the key path in upper case with dots
// as underscores (database.dsn -> PROCTOR_DATABASE_DSN). School files have no environment
// overrides: they are the per-deployment description of each school.
//
// Validation reports every problem at once, each naming its file and field, so an operator
// fixes a broken deployment in one pass. Nothing outside this package reads viper: handlers get
// the typed structs.
package config
