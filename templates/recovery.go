package templates

// recoveryPages are the pages of invitations and password recovery.
func recoveryPages() []namedPage { return nil }
