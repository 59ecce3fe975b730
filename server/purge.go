package server

import (
	"context"
	"time"
)

// Purge settings: every purgeInterval the job deletes expired codes, PKCE and OpenID Connect
// records, login sessions and token pairs in batches of purgeBatch, repeating while a batch
// comes back full, so a backlog drains without one long transaction holding locks.
const (
	purgeInterval = time.Minute
	purgeBatch    = 1000
	purgeMaxLoops = 100
)

// purgeLoop runs the purge job until ctx ends. Several replicas may run it at once: deleting
// an already deleted row is harmless.
func (s *Server) purgeLoop(ctx context.Context) {
	tick := time.NewTicker(purgeInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			s.purgeOnce(ctx)
		}
	}
}

func (s *Server) purgeOnce(ctx context.Context) int {
	total := 0
	for i := 0; i < purgeMaxLoops; i++ {
		n, err := s.deps.Store.PurgeExpired(ctx, time.Now(), purgeBatch)
		total += n
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("purge failed", "error", err)
			}
			break
		}
		if n < purgeBatch {
			break
		}
	}
	if total > 0 {
		s.log.Info("purged expired rows", "rows", total)
	}
	return total
}
