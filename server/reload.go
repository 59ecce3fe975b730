package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// SyncSchools writes the row of every school of reg (its id, subdomain and name, from the
// school files) before anything serves them: a school's data hangs off its row.
func SyncSchools(ctx context.Context, st storage.Store, reg *school.Registry) error {
	for _, t := range reg.All() {
		if err := st.SyncSchool(ctx, t.SchoolID, t.Subdomain, t.Name); err != nil {
			return fmt.Errorf("school %d: %w", t.SchoolID, err)
		}
	}
	return nil
}

// ReplaceSchools makes next's schools the ones the server serves (`proctor serve` on SIGHUP).
// Every new school's row is written first; only when all are written does the server's
// registry swap to the new set, in one step, so a request is answered by the old set or the new
// one, never by a mix. On an error the running set stays.
//
// Settings of the server file are not part of it: they take effect at the next start.
func (s *Server) ReplaceSchools(ctx context.Context, next *school.Registry) error {
	if s.deps.Schools == nil {
		return errors.New("server: no school registry to replace")
	}
	if err := SyncSchools(ctx, s.deps.Store, next); err != nil {
		return err
	}
	s.deps.Schools.Replace(next)
	s.warnPrivateNetworks()
	return nil
}
