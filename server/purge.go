package server

import (
	"context"
	"time"

	"github.com/proctorhq/proctor/audit"
)

// Purge settings: every purgeInterval the job deletes expired codes, PKCE and OpenID Connect
// records, login sessions and token pairs, and security events older than
// security_events.retention, in batches of purgeBatch, repeating while a batch comes back full,
// so a backlog drains without one long transaction holding locks.
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
			s.purgeOnce(ctx, time.Now())
		}
	}
}

// purgeOnce runs the job once as of now and returns how many rows it deleted.
func (s *Server) purgeOnce(ctx context.Context, now time.Time) int {
	total := s.purgeBatches(ctx, "expired rows", func() (int, error) {
		return s.deps.Store.PurgeExpired(ctx, now, purgeBatch)
	})
	// The log's retention is the server's setting, so its cut-off is computed here; a store
	// without the log (a stand-in in some tests) has nothing to purge.
	if p, ok := s.deps.Store.(audit.Purger); ok {
		before := now.Add(-s.deps.Config.SecurityEvents.Retention)
		total += s.purgeBatches(ctx, "security events", func() (int, error) {
			return p.PurgeSecurityEvents(ctx, before, purgeBatch)
		})
	}
	return total
}

// purgeBatches calls purge while it deletes full batches (at most purgeMaxLoops times), logs
// what it deleted, and returns the count.
func (s *Server) purgeBatches(ctx context.Context, what string, purge func() (int, error)) int {
	total := 0
	for i := 0; i < purgeMaxLoops; i++ {
		n, err := purge()
		total += n
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("purge failed", "what", what, "error", err)
			}
			break
		}
		if n < purgeBatch {
			break
		}
	}
	if total > 0 {
		s.log.Info("purged "+what, "rows", total)
	}
	return total
}
