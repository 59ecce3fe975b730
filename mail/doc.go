// Package mail sends Proctor's e-mail (invitations, password resets, e-mail confirmations)
// without losing any.
//
// A message is never sent from a request: the code that causes it puts it into the outbox
// (Queue.Send) inside the same database transaction as the event itself, so an invitation and
// its e-mail commit together or not at all. A Worker claims due messages, sends them over SMTP
// and records the outcome; a failed attempt is retried with backoff. See docs/accounts.md for
// the delivery states and the at-least-once edge.
//
// Files: outbox.go (the Outbox interface storage/gormstore implements, states), queue.go
// (sealing, by internal/seal, and enqueueing, Expander), worker.go (claiming, sending,
// retrying), smtp.go (the SMTP sender on go-mail: TLS modes, Message-ID, permanent vs temporary
// failures). Package mail/mailbox is the in-memory SMTP server of the demo and the tests.
package mail
