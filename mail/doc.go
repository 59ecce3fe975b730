// Package mail sends Proctor's e-mail (invitations, password resets, e-mail confirmations)
// without losing any.
//
// A message is never sent from a request: the code that causes it puts it into the outbox
// (Queue.Send) inside the same database transaction as the event itself, so an invitation and
// its e-mail commit together or not at all. A Worker claims due messages, sends them over SMTP
// and records the outcome; a failed attempt is retried with backoff. See docs/accounts.md for
// the delivery states and the at-least-once edge.
package mail
