package templates

// accountPages are the pages of /account.
func accountPages() []namedPage { return nil }
