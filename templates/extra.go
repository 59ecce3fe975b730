package templates

// extraPages lists the pages rendered by name: the member's account pages (account.go), the
// pages of invitations and password recovery (recovery.go), member administration
// (admin_members.go), second factors (mfa.go), the security event log (audit.go) and the
// passkey pages (passkey.go).
func extraPages() []namedPage {
	pages := append(accountPages(), recoveryPages()...)
	pages = append(pages, adminMemberPages()...)
	pages = append(pages, mfaPages()...)
	pages = append(pages, auditPages()...)
	return append(pages, passkeyPages()...)
}
