package templates

// extraPages lists the pages rendered by name: the member's account pages (account.go) and the
// pages of invitations and password recovery (recovery.go), the security event log (audit.go),
// the passkey pages (passkey.go).
func extraPages() []namedPage {
	pages := append(accountPages(), recoveryPages()...)
	pages = append(pages, mfaPages()...)
	pages = append(pages, auditPages()...)
	return append(pages, passkeyPages()...)
}
