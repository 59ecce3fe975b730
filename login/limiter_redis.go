package login

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/proctorhq/proctor/config"
)

// Defaults of RedisOptions.
const (
	// DefaultRedisKeyPrefix starts every key the limiter writes, so that a Redis shared with
	// other applications can tell Proctor's keys apart (and an operator can list them).
	DefaultRedisKeyPrefix = config.DefaultRedisKeyPrefix
	// DefaultRedisTimeout bounds each Redis call. The limiter sits in front of every sign-in;
	// a Redis that stops answering must cost a sign-in a fraction of a second, not the page.
	DefaultRedisTimeout = 250 * time.Millisecond
	// DefaultRedisRetryInterval is how long calls skip Redis after it failed, before one call
	// tries it again: during an outage at most one call per interval waits for the timeout.
	DefaultRedisRetryInterval = time.Second
	// DefaultRedisWarnInterval spaces the warnings about an unreachable Redis, so that an
	// outage writes a line a minute rather than one per sign-in.
	DefaultRedisWarnInterval = time.Minute
)

// takeScript charges one attempt if the budget (ARGV[2]) is not spent, and starts the window
// (ARGV[1] milliseconds) on the first one. Redis runs a script atomically, so the check and the
// charge cannot be split by another replica's attempt (a GET, then an INCR, could), and no crash
// or lost connection between INCR and PEXPIRE can leave a count that never expires. A key found
// without an expiry (written by something else) gets one too, for the same reason; the
// limiter's own keys always have one. It returns 1 when charged, 0 when refused.
var takeScript = redis.NewScript(`
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[2]) then
  if redis.call('PTTL', KEYS[1]) == -1 then
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
  end
  return 0
end
n = redis.call('INCR', KEYS[1])
if n == 1 or redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return 1
`)

// refundScript gives back one charge, never below zero; DECR keeps the key's expiry, so the
// window's end does not move. A key that has expired is not brought back.
var refundScript = redis.NewScript(`
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then
  redis.call('DECR', KEYS[1])
end
return n
`)

// RedisOptions tune a RedisLimiter; every zero value takes its default.
type RedisOptions struct {
	// KeyPrefix starts every Redis key (DefaultRedisKeyPrefix).
	KeyPrefix string
	// Timeout bounds each Redis call (DefaultRedisTimeout).
	Timeout time.Duration
	// RetryInterval is how long calls go straight to the fallback after Redis failed
	// (DefaultRedisRetryInterval).
	RetryInterval time.Duration
	// WarnInterval is the least time between two warnings about Redis (DefaultRedisWarnInterval).
	WarnInterval time.Duration
	// Fallback counts failures while Redis does not answer (nil: a new MemoryLimiter).
	Fallback *MemoryLimiter
	Logger   *slog.Logger     // nil: discard
	Now      func() time.Time // nil: time.Now
}

// RedisLimiter is a Limiter whose counts live in Redis, shared by every process that uses the
// same Redis and key prefix, so that N replicas allow the budget once, not N times.
//
// Keys are the prefix and the hex SHA-256 of the caller's key: no e-mail address or client
// address is written to Redis in clear, and every key has the same length.
//
// When Redis does not answer (an error, or nothing within Timeout), the call is served by an
// in-memory MemoryLimiter of this process instead and returns no error: limiting degrades to
// per process, as without Redis, rather than to none, and members can still sign in. Refusing
// every sign-in while Redis is down would turn a cache outage into a sign-in outage. For
// RetryInterval after a failure, calls go to the fallback without trying Redis; then one call
// tries again, and the first that succeeds switches every call back. Failures counted in
// memory during an outage are not copied to Redis afterwards.
type RedisLimiter struct {
	client       *redis.Client
	prefix       string
	timeout      time.Duration
	warn         time.Duration
	fallback     *MemoryLimiter
	log          *slog.Logger
	now          func() time.Time
	mu           sync.Mutex
	outage       RedisRetry
	lastWarn     time.Time
	fallbackUsed int // calls served by the fallback since the last log line
}

var _ Limiter = (*RedisLimiter)(nil)

// ErrRedisURL is returned by NewRedisLimiter for a URL it cannot use. The URL itself is never
// part of the message: it may hold a password.
var ErrRedisURL = errors.New("login: the Redis URL must look like redis://host:6379/0 or rediss://host:6379/0")

// NewRedisLimiter returns a limiter on the Redis at rawURL (redis:// or rediss://, as
// redis.ParseURL reads it). Nothing is dialled yet: a Redis that is down at start-up is the
// same outage as one that goes down later, and is handled the same way. Close releases the
// connections.
func NewRedisLimiter(rawURL string, o RedisOptions) (*RedisLimiter, error) {
	opt, err := parseRedisURL(rawURL)
	if err != nil {
		return nil, err
	}
	if o.KeyPrefix == "" {
		o.KeyPrefix = DefaultRedisKeyPrefix
	}
	o.Timeout = positiveOr(o.Timeout, DefaultRedisTimeout)
	o.RetryInterval = positiveOr(o.RetryInterval, DefaultRedisRetryInterval)
	o.WarnInterval = positiveOr(o.WarnInterval, DefaultRedisWarnInterval)
	o.Logger, o.Now = LoggerOrDiscard(o.Logger), ClockOrNow(o.Now)
	if o.Fallback == nil {
		o.Fallback = NewMemoryLimiter(0, o.Now)
	}
	// No retries: a retried script whose first reply was lost would charge one attempt twice;
	// the limiter has its own way of coming back (RetryInterval).
	shortRedisCalls(opt, o.Timeout)
	return &RedisLimiter{
		client:   redis.NewClient(opt),
		prefix:   o.KeyPrefix,
		timeout:  o.Timeout,
		outage:   RedisRetry{Interval: o.RetryInterval},
		warn:     o.WarnInterval,
		fallback: o.Fallback,
		log:      o.Logger,
		now:      o.Now,
	}, nil
}

// shortRedisCalls sets opt up for a Redis that must answer within timeout or be treated as
// down, as the limiter and the server's appearance versions (which share its client) need:
// per-call contexts carry the deadline and the client honours it; dial, read, write and pool
// waits default to timeout; a failed call is not retried (MaxRetries -1), since a retry would
// outlast the caller's patience and the callers have their own way of coming back; and one dial
// per attempt, since the pool's default of several dials with back-off would outlast timeout
// anyway. Settings the URL gives explicitly (timeouts, max_retries) are kept.
func shortRedisCalls(opt *redis.Options, timeout time.Duration) {
	opt.ContextTimeoutEnabled = true
	for _, d := range []*time.Duration{&opt.DialTimeout, &opt.ReadTimeout, &opt.WriteTimeout, &opt.PoolTimeout} {
		if *d == 0 {
			*d = timeout
		}
	}
	if opt.MaxRetries == 0 {
		opt.MaxRetries = -1
	}
	opt.DialerRetries = 1
}

// RedisRetry is whether a Redis is down and when a call may next ask it: after a failure only
// one call per Interval does (it moves the next try forward before asking), so an outage costs
// at most one call's timeout per interval, not one per request. The limiter and the server's
// appearance versions keep one each, guarded by their own lock.
type RedisRetry struct {
	Interval  time.Duration
	down      bool      // the last call failed
	skipUntil time.Time // no call tries Redis before then
}

// Down reports whether the last call failed.
func (o *RedisRetry) Down() bool { return o.down }

// Try reports whether a call should ask Redis; now is read only during an outage.
func (o *RedisRetry) Try(now func() time.Time) bool {
	if !o.down {
		return true
	}
	t := now()
	if t.Before(o.skipUntil) {
		return false
	}
	o.skipUntil = t.Add(o.Interval)
	return true
}

// Failed records a failed call at now; the first of an outage skips Redis for Interval.
func (o *RedisRetry) Failed(now time.Time) {
	if !o.down {
		o.down, o.skipUntil = true, now.Add(o.Interval)
	}
}

// Answered records that Redis answered, and reports whether that ends an outage.
func (o *RedisRetry) Answered() (ended bool) {
	ended = o.down
	o.down, o.skipUntil = false, time.Time{}
	return ended
}

// parseRedisURL reads a redis:// or rediss:// URL with redis.ParseURL. Its errors never quote
// the URL, which may hold a password.
func parseRedisURL(rawURL string) (*redis.Options, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") {
		return nil, ErrRedisURL
	}
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		// After url.Parse succeeded, go-redis's messages name the path or query options only.
		return nil, errors.Join(ErrRedisURL, err)
	}
	return opt, nil
}

// Addr is the host:port of the Redis in use, for logs (it never includes credentials).
func (r *RedisLimiter) Addr() string { return r.client.Options().Addr }

// Client is the limiter's Redis client, for other calls of the server to the same Redis that
// must answer as quickly (the pages' appearance versions); Close closes it.
func (r *RedisLimiter) Client() *redis.Client { return r.client }

// Close closes the connections to Redis.
func (r *RedisLimiter) Close() error { return r.client.Close() }

// Take implements Limiter.
func (r *RedisLimiter) Take(ctx context.Context, key string, l Limit) (bool, error) {
	if r.tryRedis() {
		window := max(l.Window.Milliseconds(), 1)
		cctx, cancel := context.WithTimeout(ctx, r.timeout)
		n, err := takeScript.Run(cctx, r.client, []string{r.redisKey(key)}, window, l.Max).Int()
		cancel()
		if err == nil {
			r.answered(ctx)
			return n == 1, nil
		}
		r.failed(ctx, err)
	}
	return r.fallback.Take(ctx, key, l)
}

// Refund implements Limiter. During an outage the fallback's count is refunded instead.
func (r *RedisLimiter) Refund(ctx context.Context, key string) error {
	if r.tryRedis() {
		cctx, cancel := context.WithTimeout(ctx, r.timeout)
		err := refundScript.Run(cctx, r.client, []string{r.redisKey(key)}).Err()
		cancel()
		if err == nil {
			r.answered(ctx)
			return nil
		}
		r.failed(ctx, err)
	}
	return r.fallback.Refund(ctx, key)
}

// Reset implements Limiter. The fallback's count is forgotten as well, so that a member who
// just signed in is not refused on the strength of an earlier outage's count.
func (r *RedisLimiter) Reset(ctx context.Context, key string) error {
	if r.tryRedis() {
		cctx, cancel := context.WithTimeout(ctx, r.timeout)
		err := r.client.Del(cctx, r.redisKey(key)).Err()
		cancel()
		if err == nil {
			r.answered(ctx)
		} else {
			r.failed(ctx, err)
		}
	}
	return r.fallback.Reset(ctx, key)
}

// Spent implements Limiter: one GET. During an outage the fallback answers.
func (r *RedisLimiter) Spent(ctx context.Context, key string, l Limit) (bool, error) {
	if r.tryRedis() {
		cctx, cancel := context.WithTimeout(ctx, r.timeout)
		n, err := r.client.Get(cctx, r.redisKey(key)).Int()
		cancel()
		if errors.Is(err, redis.Nil) {
			n, err = 0, nil
		}
		if err == nil {
			r.answered(ctx)
			return n >= l.Max, nil
		}
		r.failed(ctx, err)
	}
	return r.fallback.Spent(ctx, key, l)
}

// redisKey names key in Redis: the prefix and the hex SHA-256 of key.
func (r *RedisLimiter) redisKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return r.prefix + hex.EncodeToString(sum[:])
}

// tryRedis reports whether this call should ask Redis: after a failure only one call per
// RetryInterval does, so an outage costs at most one Timeout per interval, not one per sign-in.
func (r *RedisLimiter) tryRedis() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.outage.Try(r.now) {
		return true
	}
	r.fallbackUsed++
	return false
}

// answered records that Redis answered, and says so once after an outage.
func (r *RedisLimiter) answered(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.outage.Answered() {
		return
	}
	r.log.InfoContext(ctx, "rate limiter: Redis answers again; login failures are counted in Redis again",
		"addr", r.Addr(), "fallback_calls", r.fallbackUsed)
	r.fallbackUsed = 0
}

// failed records that Redis did not answer, warning at most once per WarnInterval. A call whose
// own context ended (the browser went away) says nothing about Redis and changes nothing.
func (r *RedisLimiter) failed(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	r.fallbackUsed++
	r.outage.Failed(now)
	if !r.lastWarn.IsZero() && now.Sub(r.lastWarn) < r.warn {
		return
	}
	// go-redis errors name the address and the failing operation, never the password.
	r.log.WarnContext(ctx, "rate limiter: Redis does not answer; login failures are counted in this process only until it does",
		"addr", r.Addr(), "err", err, "fallback_calls", r.fallbackUsed)
	r.lastWarn, r.fallbackUsed = now, 0
}
