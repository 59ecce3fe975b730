package server

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/authz"
	"github.com/proctorhq/proctor/authz/cimd"
	"github.com/proctorhq/proctor/resource"
)

// appMetrics count what the authorization and resource servers do (docs/metrics.md). The
// packages that do it know nothing of Prometheus: each takes optional hooks (authz.Counters,
// cimd.Options.Fetched, resource.VerdictObserver, audit.WithCounter) that call these.
type appMetrics struct {
	tokensIssued  *prometheus.CounterVec
	rotations     *prometheus.CounterVec
	reuse         *prometheus.CounterVec
	revocations   *prometheus.CounterVec
	grantsRevoked *prometheus.CounterVec
	signIns       *prometheus.CounterVec
	lockouts      *prometheus.CounterVec
	verdicts      *prometheus.CounterVec
	documents     *prometheus.CounterVec
	purged        *prometheus.CounterVec
}

// Token verdict surfaces (the surface label).
const (
	surfaceGraphQL  = "graphql"
	surfaceMCP      = "mcp"
	surfaceOperator = "operator"
	surfaceUserinfo = "userinfo"
	// surfaceIntrospect is the internal introspection endpoint (a span attribute only: its
	// verdicts are not counted).
	surfaceIntrospect = "introspect"
)

func newAppMetrics() *appMetrics {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	return &appMetrics{
		tokensIssued: counter("proctor_tokens_issued_total",
			"Token pairs issued by the token endpoint, by school id and grant type.", "school", "grant_type"),
		rotations: counter("proctor_refresh_rotations_total",
			"Refresh grants that issued a new token pair in place of the one presented, by school id.", "school"),
		reuse: counter("proctor_refresh_reuse_detections_total",
			"Refresh tokens presented again after their pair was revoked (the grant is revoked), by school id.", "school"),
		revocations: counter("proctor_token_revocations_total",
			"Grants revoked through the revocation endpoint (RFC 7009), by school id.", "school"),
		grantsRevoked: counter("proctor_grant_revocations_total",
			"Grant revocations recorded as security events (by members, operators, or on refresh token reuse), by school id.", "school"),
		signIns: counter("proctor_sign_ins_total",
			"Password sign-ins by school id and result (success, failure, throttled).", "school", "result"),
		lockouts: counter("proctor_sign_in_lockouts_total",
			"Sign-ins refused by a rate limit before the password was checked, by school id.", "school"),
		verdicts: counter("proctor_token_verdicts_total",
			"Bearer token verdicts by protected surface and verdict.", "surface", "verdict"),
		documents: counter("proctor_cimd_fetches_total",
			"Client ID Metadata Document lookups by result.", "result"),
		purged: counter("proctor_purged_rows_total",
			"Rows deleted by the purge job, by what was purged.", "what"),
	}
}

// mailDepth is a store that can count the mail outbox's unsent messages.
type mailDepth interface {
	MailOutboxDepth(ctx context.Context) (int, error)
}

// sqlDBer is a store that exposes its connection pool.
type sqlDBer interface{ SQLDB() *sql.DB }

// scrapeTimeout bounds the outbox count a scrape runs.
const scrapeTimeout = 2 * time.Second

// register adds the collectors to reg, and those the store supports: the outbox depth and the
// connection pool statistics.
func (a *appMetrics) register(reg *prometheus.Registry, store any) {
	reg.MustRegister(a.tokensIssued, a.rotations, a.reuse, a.revocations, a.grantsRevoked, a.signIns,
		a.lockouts, a.verdicts, a.documents, a.purged)
	if db, ok := store.(sqlDBer); ok {
		reg.MustRegister(collectors.NewDBStatsCollector(db.SQLDB(), "proctor"))
	}
	if m, ok := store.(mailDepth); ok {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "proctor_mail_outbox_depth",
			Help: "Messages in the mail outbox not yet sent.",
		}, func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
			defer cancel()
			n, err := m.MailOutboxDepth(ctx)
			if err != nil {
				return -1
			}
			return float64(n)
		}))
	}
}

// start gives every series whose labels are known in advance its zero, so that a rate over it
// is 0 rather than missing before its first event: the document lookup results and what the
// purge job purges, and each school's token, sign-in, lockout and revocation counters.
func (a *appMetrics) start(schoolIDs []int64) {
	for _, r := range []cimd.FetchResult{cimd.FetchOK, cimd.FetchCached, cimd.FetchFailed, cimd.FetchInvalid, cimd.FetchLimited} {
		a.documents.WithLabelValues(string(r))
	}
	for _, what := range []string{purgedExpired, purgedSecurityEvents} {
		a.purged.WithLabelValues(what)
	}
	for _, id := range schoolIDs {
		school := schoolLabel(id)
		for _, gt := range []string{grantAuthorizationCode, grantRefreshToken} {
			a.tokensIssued.WithLabelValues(school, gt)
		}
		for _, res := range []audit.Result{audit.ResultSuccess, audit.ResultFailure, audit.ResultThrottled} {
			a.signIns.WithLabelValues(school, string(res))
		}
		for _, c := range []*prometheus.CounterVec{a.rotations, a.reuse, a.revocations, a.grantsRevoked, a.lockouts} {
			c.WithLabelValues(school)
		}
	}
}

// The grant types the token endpoint serves (the grant_type label).
const (
	grantAuthorizationCode = "authorization_code"
	grantRefreshToken      = "refresh_token"
)

func schoolLabel(id int64) string { return strconv.FormatInt(id, 10) }

// counters are authz's hooks.
func (a *appMetrics) counters() authz.Counters {
	return authz.Counters{
		TokenIssued: func(schoolID int64, grantType string) {
			a.tokensIssued.WithLabelValues(schoolLabel(schoolID), grantType).Inc()
			if grantType == grantRefreshToken {
				a.rotations.WithLabelValues(schoolLabel(schoolID)).Inc()
			}
		},
		RefreshReused: func(schoolID int64) { a.reuse.WithLabelValues(schoolLabel(schoolID)).Inc() },
		Revoked:       func(schoolID int64) { a.revocations.WithLabelValues(schoolLabel(schoolID)).Inc() },
	}
}

// securityEvent derives the sign-in, lockout and grant revocation counters from the security
// events recorded (audit.WithCounter, beside proctor_security_events_total).
func (a *appMetrics) securityEvent(schoolID int64, k audit.Kind, res audit.Result) {
	school := schoolLabel(schoolID)
	switch k {
	case audit.KindSignIn:
		a.signIns.WithLabelValues(school, string(res)).Inc()
		if res == audit.ResultThrottled {
			a.lockouts.WithLabelValues(school).Inc()
		}
	case audit.KindGrantRevoked:
		a.grantsRevoked.WithLabelValues(school).Inc()
	}
}

func (a *appMetrics) documentFetched(r cimd.FetchResult) {
	a.documents.WithLabelValues(string(r)).Inc()
}

func (a *appMetrics) rowsPurged(what string, n int) {
	a.purged.WithLabelValues(what).Add(float64(n))
}

// doorVerdicts is the Verifier a door-guarded surface is built with: it verifies through v
// and counts the door's verdicts (resource.VerdictObserver).
type doorVerdicts struct {
	resource.Verifier
	surface string
	m       *appMetrics
}

func (d doorVerdicts) ObserveVerdict(_ context.Context, verdict string) {
	d.m.verdicts.WithLabelValues(d.surface, verdict).Inc()
}

// doorVerifier wraps v for the surface's door.
func (a *appMetrics) doorVerifier(surface string, v resource.Verifier) resource.Verifier {
	return doorVerdicts{Verifier: v, surface: surface, m: a}
}

// verifyVerdicts counts the verifier's own verdicts, for a surface without a door (userinfo,
// which refuses only what the verifier refuses and a token without a member).
type verifyVerdicts struct {
	resource.Verifier
	surface string
	m       *appMetrics
}

func (v verifyVerdicts) Verify(ctx context.Context, token string) (resource.Grant, error) {
	g, err := v.Verifier.Verify(ctx, token)
	verdict := resource.VerdictOK
	switch {
	case err != nil:
		verdict = resource.RefusalKindOf(err).String()
	case g.MemberID == 0:
		verdict = resource.NoMember.String()
	}
	v.m.verdicts.WithLabelValues(v.surface, verdict).Inc()
	return g, err
}
