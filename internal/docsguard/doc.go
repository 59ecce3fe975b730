// Package docsguard keeps the configuration the documentation shows working. A fenced block
// whose info string marks it as checked is run through the proctor binary by this package's
// test, the way an operator who copies it would:
//
//   - `yaml checked-server`: a server file, checked by `proctor --config FILE schools validate`;
//   - `yaml checked-school`: a school file, the only one of its schools directory, checked by
//     `proctor schools validate`;
//   - `sh checked`: commands run as written, each `proctor ... validate` or `proctor ... --help`
//     (or `-h`, `version`), and nothing else: no pipes, redirections or substitutions.
//
// Every one must exit 0. Paths outside the snippet (the schools directory, the secret, the mail
// password) are supplied by the environment, which the override rule lets replace the file's
// (docs/configuration.md). The tests also refuse a Markdown table split by a blank line, whose
// rows after the gap render as a paragraph, and check the sample deployment in deploy/ the way
// docs/deployment.md's container example uses it, with every deploy/ path the documentation
// names, and that deploy/ holds no file without a test that checks it.
package docsguard
