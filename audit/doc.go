// Package audit is the security event log: an append-only record, per school, of what happened
// to members, clients and keys (sign-ins, second factors, password resets, invitations,
// consents, revocations, client and role changes, key rotations), who did it, to whom, from
// where, and in which request. Operators read it at /admin/security-events and with
// `proctor events list`; every kind is also a Prometheus counter by school and result.
//
// An Event never holds a secret, a token or a password: only ids, names, scopes, an address, a
// browser's User-Agent and a short plain note. Recorder fills in what the request context
// knows (school, request id, client address) and the time.
//
// The server builds one Recorder (NewRecorder with WithCounter, for the Prometheus counter) and
// hands it to every package that records; a package records with Note after the fact it tells
// of, or with Record inside the store transaction of the change, so that the event commits or
// rolls back with it. storage/gormstore implements Store and Purger over one table; the server's
// purge job deletes events older than the security_events.retention setting through Purger.
// docs/security.md ("Security event log") lists every kind, where it is recorded and its fields.
//
// The package is a leaf (it imports storage, school and edge only) so that storage/gormstore can
// implement Store without an import cycle.
package audit
