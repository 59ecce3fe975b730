package templates

// extraPages lists the pages rendered by name: the member's account pages (account.go) and the
// pages of invitations and password recovery (recovery.go), the passkey pages (passkey.go).
func extraPages() []namedPage {
	return append(append(accountPages(), recoveryPages()...), passkeyPages()...)
}
