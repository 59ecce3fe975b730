package account

import "github.com/proctorhq/proctor/account/accountstore"

// The store's shapes and interfaces are declared in package accountstore (a leaf, so that
// storage/gormstore can implement them without importing this package) and named here, where
// they are used. Their documentation is there.

// Purpose is what a one-time link is for.
type Purpose = accountstore.Purpose

// Link purposes.
const (
	PurposeInvitation  = accountstore.PurposeInvitation
	PurposeReset       = accountstore.PurposeReset
	PurposeEmailChange = accountstore.PurposeEmailChange
)

// Stored shapes.
type (
	Link         = accountstore.Link
	SessionInfo  = accountstore.SessionInfo
	ConnectedApp = accountstore.ConnectedApp
	// Event is an entry of the security event log (package audit names its kinds).
	Event = accountstore.Event
)

// Store interfaces: Store is everything the account flows read and write.
type (
	Links    = accountstore.Links
	Sessions = accountstore.Sessions
	Apps     = accountstore.Apps
	Events   = accountstore.Events
	Members  = accountstore.Members
	Store    = accountstore.Store
)
