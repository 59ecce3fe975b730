-- 004_token_pair_indexes: indexes for the token pairs' hot paths and for the purge job, found by
-- profiling the load command (docs/benchmarks.md).

-- Every statement on a grant's pairs is scoped to its school: school_id = ? AND request_id = ?.
-- With an index on request_id alone, SQLite's planner (which has no statistics unless ANALYZE
-- ran) chose the (school_id, client_id) index instead and walked every pair of the school for
-- each revocation, refresh lock and first use.
DROP INDEX oauth_token_pairs_request_idx;
CREATE INDEX oauth_token_pairs_request_idx ON oauth_token_pairs (school_id, request_id);

-- Deleting a pair sets replaces_pair_id to NULL in the pair that names it (ON DELETE SET NULL);
-- without an index both databases scan the table once for every pair the purge job deletes.
CREATE INDEX oauth_token_pairs_replaces_idx ON oauth_token_pairs (replaces_pair_id);

-- The purge job's condition (purge.go), verbatim, so that both planners match the expression.
-- It replaces the index on refresh_expires_at, which no statement could use.
DROP INDEX oauth_token_pairs_expiry_idx;
CREATE INDEX oauth_token_pairs_expiry_idx ON oauth_token_pairs ((COALESCE(refresh_expires_at, access_expires_at)));

-- The operator API's school-wide payment listing pages newest first (operator_orders.go).
CREATE INDEX payments_school_created_idx ON payments (school_id, created_at DESC, id DESC);
