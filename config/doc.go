// Package config loads Proctor's configuration into typed, validated structs.
//
// There are two kinds of file: one server file (listeners, database, secret, logging, proxies,
// HTTP limits) and one YAML file per school in the schools directory. Every server key can be
// overridden by an environment variable named PROCTOR_ plus the key path in upper case with dots
// as underscores (database.dsn -> PROCTOR_DATABASE_DSN). The environment wins over the file for
// the same setting, and a secret given inline or by file (secret and secret_file, mail.password
// and mail.password_file) is one setting: either form from the environment replaces either form
// from the file, so a deployment can keep a file's secret_file and override it with
// PROCTOR_SECRET. School files have no environment overrides: they are the per-deployment
// description of each school.
//
// Validation reports every problem at once (unknown keys, values that do not decode, values out
// of range), each naming its file, or the environment variable its value came from, and its
// field, so an operator fixes a broken deployment in one pass. Nothing outside this package
// reads viper: handlers get the typed structs.
package config
