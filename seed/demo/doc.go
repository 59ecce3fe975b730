// Package demo holds the two demo schools that `proctor demo` serves on the loopback interface:
// their school identities, their seed fixtures (embedded YAML in the seed format) and the demo
// accounts printed at start-up.
//
//	school 1  Northwind Academy  subdomain northwind  http://127.0.0.1:<port>  USD
//	school 2  Lumen School       subdomain lumen      http://localhost:<port>  JPY
//
// Both schools share one port; the server tells them apart by the Host header, as it does in
// production. Jordan Lee holds roles at both, so a token's school binding can be tried out.
//
// The passwords are fixed and published (Accounts, and the fixtures): they are demo data and
// the demo listens on loopback only. Members not in Accounts log in with "member-demo-pass".
//
// The fixtures are written as if today were Reference; School.Load moves every date by whole
// weeks so that enrollments, unlock dates, upcoming events, meetings and the unpaid transfer's
// deadline keep the same distance from today however long after Reference the demo runs.
package demo
