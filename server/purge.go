package server

import (
	"context"
	"strings"
	"time"

	"github.com/proctorhq/proctor/audit"
)

// Purge settings: every purgeInterval (or Deps.PurgeInterval) the job deletes expired codes, PKCE and OpenID Connect
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
	every := s.deps.PurgeInterval
	if every == 0 {
		every = purgeInterval
	}
	tick := time.NewTicker(every)
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
	total := s.purgeBatches(ctx, purgedExpired, func() (int, error) {
		return s.deps.Store.PurgeExpired(ctx, now, purgeBatch)
	})
	// The log's retention is the server's setting, so its cut-off is computed here; a store
	// without the log (a stand-in in some tests) has nothing to purge.
	if p, ok := s.deps.Store.(audit.Purger); ok {
		before := now.Add(-s.deps.Config.SecurityEvents.Retention)
		total += s.purgeBatches(ctx, purgedSecurityEvents, func() (int, error) {
			return p.PurgeSecurityEvents(ctx, before, purgeBatch)
		})
	}
	return total
}

// What the purge job deletes, as the what label of proctor_purged_rows_total.
const (
	purgedExpired        = "expired_rows"
	purgedSecurityEvents = "security_events"
)

// purgeBatches calls purge while it deletes full batches (at most purgeMaxLoops times), logs
// and counts what it deleted, and returns the count.
func (s *Server) purgeBatches(ctx context.Context, what string, purge func() (int, error)) int {
	// The log says it in words: "expired rows".
	words := strings.ReplaceAll(what, "_", " ")
	total := 0
	for i := 0; i < purgeMaxLoops; i++ {
		n, err := purge()
		total += n
		if err != nil {
			if ctx.Err() == nil {
				s.log.WarnContext(ctx, "purge failed", "what", words, "error", err)
			}
			break
		}
		if n < purgeBatch {
			break
		}
	}
	if total > 0 {
		s.log.InfoContext(ctx, "purged "+words, "rows", total)
		s.metrics.app.rowsPurged(what, total)
	}
	return total
}
