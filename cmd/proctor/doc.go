// Command proctor is the Proctor authorization server and its administration commands.
//
//	proctor serve                         run the public and internal listeners
//	proctor migrate                       apply pending database migrations
//	proctor doctor [--json]               check the database's consistency (docs/doctor.md)
//	proctor demo                          zero-configuration demo on loopback (make run)
//	proctor seed --school ID FILE         load a fixture into a school
//	proctor schools list|validate         show or check the school files
//	proctor members create|list|set-role|invite|reset-link|unlock
//	                                      manage members and their roles, invite them, send a
//	                                      password-reset link, lift sign-in lockouts
//	proctor clients create|list|rotate-secret|delete  manage a school's OAuth clients
//	proctor keys rotate|list              rotate or list a school's signing keys
//	proctor events list                   read a school's security event log (a table, or JSON lines)
//	proctor bench                         load test a server on loopback (docs/benchmarks.md)
//	proctor version                       print the version
//
// Every command but demo and version reads the server file named by --config (or
// PROCTOR_CONFIG) and the PROCTOR_* environment. Invalid configuration exits with status 2
// after listing every problem; other failures exit with status 1, with a sentence: an unknown
// client id or member address is named with the school it was looked for at, not as the store's
// error.
package main
