package templates

// extraPages lists the pages rendered by name: the member's account pages (account.go), the
// pages of invitations and password recovery (recovery.go), member administration
// (admin_members.go), second factors (mfa.go) and the security event log (audit.go).
func extraPages() []namedPage {
	pages := append(accountPages(), recoveryPages()...)
	pages = append(pages, adminMemberPages()...)
	pages = append(pages, mfaPages()...)
	return append(pages, auditPages()...)
}
