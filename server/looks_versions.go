package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/proctorhq/proctor/login"
)

// Timings of appearanceVersions.
const (
	// appearanceVersionTimeout bounds each Redis call of the appearance versions. Every page
	// asks once; a Redis that stops answering must cost a page a fraction of a second.
	appearanceVersionTimeout = 250 * time.Millisecond
	// appearanceVersionRetry is how long pages skip Redis after it failed, before one page
	// asks again: during an outage at most one page per interval waits for the timeout.
	appearanceVersionRetry = time.Second
)

// appearanceVersions tells the replicas sharing one Redis that a school's appearance changed.
// The replica whose operator API stored a change writes a new random version under the school's
// key (bump), after the database write; every replica remembers the version it saw when it read
// the appearance from the database and, before reusing its copy, reads the version again
// (version: one GET, no SQL). A different version means another replica changed it since: read
// the database again. The version is random rather than a counter, so a Redis that lost its
// keys (restarted without persistence, flushed) cannot hand out a number a replica saw before a
// change: the key's absence is a version of its own ("").
//
// When Redis does not answer, version returns an error and the pages fall back to the cache's
// time to live (Deps.AppearanceCache); the outage is logged once, and once more when Redis
// answers again.
type appearanceVersions struct {
	client *redis.Client
	prefix string
	log    *slog.Logger

	mu     sync.Mutex
	outage login.RedisRetry
}

// errVersionsDown is version's answer while it skips Redis after a failure.
var errVersionsDown = errors.New("appearance versions: Redis did not answer a moment ago")

// newAppearanceVersions returns the versions kept under keys starting with prefix in the Redis
// the login limiter uses, through its client: the same server, set up for calls that must
// answer quickly or count as failed, so one pool of connections serves both. The limiter owns
// and closes the client.
func newAppearanceVersions(client *redis.Client, prefix string, log *slog.Logger) *appearanceVersions {
	return &appearanceVersions{client: client, prefix: prefix, log: log,
		outage: login.RedisRetry{Interval: appearanceVersionRetry}}
}

// key names school id's appearance version: beside the login limiter's keys under the same
// prefix, which are 64 hex digits and so never look like this.
func (v *appearanceVersions) key(schoolID int64) string {
	return v.prefix + "appearance:" + strconv.FormatInt(schoolID, 10)
}

// version reads school id's current version ("" when no replica has changed the appearance
// since Redis last lost its keys).
func (v *appearanceVersions) version(ctx context.Context, schoolID int64) (string, error) {
	if !v.try() {
		return "", errVersionsDown
	}
	cctx, cancel := context.WithTimeout(ctx, appearanceVersionTimeout)
	s, err := v.client.Get(cctx, v.key(schoolID)).Result()
	cancel()
	if errors.Is(err, redis.Nil) {
		s, err = "", nil
	}
	v.answered(ctx, err)
	return s, err
}

// bump gives school id's appearance a new version, so that every replica reads it again from
// the database on its next page. It runs after the operator's request has its answer decided,
// so it does not stop when the operator's client goes away.
func (v *appearanceVersions) bump(ctx context.Context, schoolID int64) error {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), appearanceVersionTimeout)
	err := v.client.Set(cctx, v.key(schoolID), hex.EncodeToString(b), 0).Err()
	cancel()
	v.answered(ctx, err)
	return err
}

// try reports whether this call should ask Redis: after a failure only one call per
// appearanceVersionRetry does.
func (v *appearanceVersions) try() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.outage.Try(time.Now)
}

// answered records the outcome of a call, logging the start and the end of an outage once
// each. A call whose own context ended (the browser went away) says nothing about Redis.
func (v *appearanceVersions) answered(ctx context.Context, err error) {
	if err != nil && ctx.Err() != nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	switch {
	case err == nil:
		if v.outage.Answered() {
			v.log.InfoContext(ctx, "appearance versions: Redis answers again; every replica shows an appearance change on its next page again",
				"addr", v.client.Options().Addr)
		}
	case !v.outage.Down():
		v.outage.Failed(time.Now())
		// go-redis errors name the address and the failing operation, never the password.
		v.log.WarnContext(ctx, "appearance versions: Redis does not answer; until it does, other replicas show an appearance change within the appearance cache's time",
			"addr", v.client.Options().Addr, "err", err)
	}
}
