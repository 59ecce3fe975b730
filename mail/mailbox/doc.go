// Package mailbox is an SMTP server that keeps what it receives in memory: the demo's and the
// tests' mail server, and `proctor mailbox` for developers. It listens on loopback only, keeps
// the last messages (200 by default), parses each (addresses, subject, text and HTML parts,
// Message-ID) and shows them over HTTP.
//
// It accepts any sender, recipient and AUTH PLAIN credentials: it is not a mail server to put on
// a network. It can stop accepting and start again on the same address, so that tests can
// stage an outage of the SMTP server.
//
// Routes of Handler (mounted on the internal listener at /mail by `proctor demo`):
//
//	GET /mail                 the messages as an HTML page, newest first
//	GET /mail/messages.json   the same as JSON
package mailbox
