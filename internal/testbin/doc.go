// Package testbin builds the proctor binary for tests that run it as a real process (the
// reload on SIGHUP, the documentation's checked commands): signals, exit statuses and output
// are then the ones an operator sees, not those of a function called in the test's process.
package testbin
