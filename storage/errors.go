package storage

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound: no row matched, or the row belongs to another school.
	ErrNotFound = errors.New("storage: not found")
	// ErrAlreadyExists: a unique key (e-mail, slug, trade number ...) is taken.
	ErrAlreadyExists = errors.New("storage: already exists")
	// ErrInvalidArgument: the call's input is malformed (a bad cursor, an unknown role ...).
	ErrInvalidArgument = errors.New("storage: invalid argument")
	// ErrUnavailable: the database could not be reached or timed out. Callers answer 503 and
	// the client may retry; it is never an answer about the data.
	ErrUnavailable = errors.New("storage: unavailable")
)

// ImportError names the record of a SchoolData import that failed, so that the seed command can
// point at its line in the fixture file. Kind is the SchoolData field's YAML key ("courses",
// "payments" ...) and Index the record's position in that list.
type ImportError struct {
	Kind  string
	Index int
	Err   error
}

func (e *ImportError) Error() string { return fmt.Sprintf("%s[%d]: %v", e.Kind, e.Index, e.Err) }
func (e *ImportError) Unwrap() error { return e.Err }
