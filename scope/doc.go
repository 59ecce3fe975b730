// Package scope is the catalogue of OAuth scopes from the spec's Scopes table: each scope's
// name, its plain-language description, and its audience. Pages (the consent screen, the
// operator's application pages) show the description in the member's language: Describe reads
// it from the message catalogue (i18n/catalog/scope.*), under Key's key.
//
// Audiences (spec, Authentication rule 11): identity scopes (openid, profile, email) go to any
// client; member scopes (account:read, account:write) only to member clients, which act for one
// member at one school; every other scope is an operator scope, held only by operator clients
// and granted only by a member with an operator role at the school.
package scope
