// Package roster holds the shapes of a school's member roster as its administration pages
// read it (who holds a role, whether they can sign in yet, when they last did) and the store
// interface over it, which storage/gormstore implements. A roster is always one school's: every
// method is scoped by the context's school.
//
// The package is a leaf (it imports storage only) so that the store can implement it without
// importing admin, whose tests open a gormstore.
package roster
