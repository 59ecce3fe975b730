package templates

// extraPages lists the pages rendered by name: the member's account pages (account.go) and the
// pages of invitations and password recovery (recovery.go).
func extraPages() []namedPage {
	return append(append(accountPages(), recoveryPages()...), mfaPages()...)
}
