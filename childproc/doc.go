// Package childproc runs a program as a child process tied to this one: its environment
// without PROCTOR_* variables, killed with its parent on Linux, its output in a log file whose
// tail can be read, its readiness found by polling /readyz, and the loopback ports it will
// listen on held until it is about to bind them. Poll is the loop under WaitReady: it waits
// until a condition holds, stopping when the process exits or a deadline that only stops a hang
// passes; the tests that wait on a process use it too.
//
// `proctor bench` runs `proctor serve` this way, and so do the tests that need a whole server
// process (systemtest, cmd/proctor's reload and tracing tests). The package gives the parts;
// each caller keeps its own policy: which signal the kernel sends on the parent's death, how
// long a stop may take, where logs go and what a failure prints.
//
// It imports nothing of the server and nothing of this module: it is a leaf, so that the load
// command stays a client of the server it measures. Nothing in the server imports it; bench
// and tests do.
package childproc
