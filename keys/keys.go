package keys

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// Algorithm is the only signature algorithm Proctor's keys use (spec, Authentication rule 9).
const Algorithm = "ES256"

// DefaultCacheTTL is how long a replica trusts its cached view of a school's keys.
const DefaultCacheTTL = 30 * time.Second

// Key is a school's signing key, decrypted.
type Key struct {
	KID       string
	Private   *ecdsa.PrivateKey
	CreatedAt time.Time
}

// Info describes a stored key without its private half (for listings).
type Info struct {
	KID       string
	CreatedAt time.Time
	RetiredAt *time.Time
	// Current is the key new tokens are signed with; Published keys are in the JWKS (the
	// current one included).
	Current   bool
	Published bool
}

// Options tune a Manager; the zero value is usable.
type Options struct {
	// Now is the clock (time.Now if nil).
	Now func() time.Time
	// CacheTTL bounds how stale a replica's view of a school's keys may be (DefaultCacheTTL if
	// zero or negative). It is also the JWKS response's max-age.
	CacheTTL time.Duration
	// Logger receives the detail of failures that the JWKS handler answers with a bare 500
	// (nothing is logged if nil).
	Logger *slog.Logger
}

// Manager gives each school its signing key and JWKS. It is safe for concurrent use and keeps
// no state another replica needs: everything durable is in the store, and the cache is only a
// bounded-staleness copy of it.
type Manager struct {
	st     storage.SigningKeys
	sealer *sealer
	err    error // set when the secret is unusable; every call returns it
	now    func() time.Time
	ttl    time.Duration
	log    *slog.Logger

	mu      sync.RWMutex
	schools map[int64]*schoolCache
}

// schoolCache is one school's cached view. Readers take the snapshot without locking; mu is
// held only to load or change the school's keys, so that concurrent misses on this replica make
// one round of queries rather than one each.
type schoolCache struct {
	mu   sync.Mutex
	snap atomic.Pointer[snapshot]
}

// snapshot is what a request needs, ready to use: the parsed current key and the JWKS both as
// a value and already encoded.
type snapshot struct {
	current  Key
	jwks     jose.JSONWebKeySet
	jwksJSON []byte
	expires  time.Time
}

// NewManager returns a Manager over st. secret is the system secret; if it is too short to be
// one, the Manager still builds but every call fails with that error, so a misconfiguration
// cannot quietly store keys under a weak key.
func NewManager(st storage.SigningKeys, secret config.Secret, opts Options) *Manager {
	m := &Manager{
		st:      st,
		now:     opts.Now,
		ttl:     opts.CacheTTL,
		log:     opts.Logger,
		schools: make(map[int64]*schoolCache),
	}
	if m.now == nil {
		m.now = time.Now
	}
	if m.ttl <= 0 {
		m.ttl = DefaultCacheTTL
	}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	m.sealer, m.err = newSealer(secret)
	return m
}

// CacheTTL returns the bound on how stale this Manager's view of a school's keys may be.
func (m *Manager) CacheTTL() time.Duration { return m.ttl }

// Current returns the context school's current signing key: the newest key that is not
// retired. A school without one gets one here, so that the first ID token needs no setup step.
// If two replicas create one at the same moment, both keys are stored and published and every
// replica converges on the newer one.
func (m *Manager) Current(ctx context.Context) (Key, error) {
	s, err := m.snapshot(ctx)
	if err != nil {
		return Key{}, err
	}
	return s.current, nil
}

// Rotate makes a new key current and returns it. The key that was current stays published, so
// tokens it signed moments ago still verify; every older key that was still published is
// retired. This replica's cache is replaced at once; other replicas follow within CacheTTL.
//
// Rotate refuses (with an error wrapping ErrDecrypt) when the current key does not decrypt
// with this Manager's secret: a rotation run with another secret than the servers' would store
// a key none of them can open, and every school's ID tokens would stop. RotateAfterSecretChange
// is the deliberate way past that check.
func (m *Manager) Rotate(ctx context.Context) (Key, error) {
	return m.rotate(ctx, true)
}

// RotateAfterSecretChange rotates like Rotate without first checking that the current key
// decrypts. It is the recovery path after the system secret was changed on purpose: the old
// keys can no longer be opened, and a new key sealed under the new secret replaces them.
func (m *Manager) RotateAfterSecretChange(ctx context.Context) (Key, error) {
	return m.rotate(ctx, false)
}

func (m *Manager) rotate(ctx context.Context, checkCurrent bool) (Key, error) {
	if m.err != nil {
		return Key{}, m.err
	}
	t, err := school.FromContext(ctx)
	if err != nil {
		return Key{}, err
	}
	sc := m.school(t.SchoolID)
	sc.mu.Lock()
	defer sc.mu.Unlock()

	rows, err := m.st.ListSigningKeys(ctx)
	if err != nil {
		return Key{}, fmt.Errorf("keys: list school %d's keys: %w", t.SchoolID, err)
	}
	live := published(rows)
	if checkCurrent && len(live) > 0 {
		if _, err := m.sealer.open(t.SchoolID, live[0].KID, live[0].PrivateKeyEncrypted); err != nil {
			return Key{}, fmt.Errorf("keys: refusing to rotate school %d: its current key %s does not open with this system secret: %w",
				t.SchoolID, live[0].KID, err)
		}
	}
	k, err := m.create(ctx, t.SchoolID, newestCreated(rows))
	if err != nil {
		return Key{}, err
	}
	// The new key is stored before anything is retired: if a retirement fails, more keys are
	// published than needed (harmless, and the next rotation retires them) rather than fewer.
	// Only keys seen before this rotation are candidates, so a key another replica created
	// concurrently is never retired by us before it has been published for a while.
	if len(live) > 1 {
		at := m.now()
		for _, r := range live[1:] {
			err := m.st.RetireSigningKey(ctx, r.KID, at)
			if err != nil && !errors.Is(err, storage.ErrNotFound) {
				sc.snap.Store(nil)
				return Key{}, fmt.Errorf("keys: retire key %s of school %d: %w", r.KID, t.SchoolID, err)
			}
		}
	}
	s, err := m.load(ctx, t.SchoolID)
	if err != nil {
		// The rotation happened; only the cache refresh failed. Drop the stale view so the
		// next call reloads rather than serving the old key for a whole TTL.
		sc.snap.Store(nil)
		return Key{}, err
	}
	sc.snap.Store(s)
	return k, nil
}

// List describes the school's stored keys, newest first, read straight from the store (no
// cache, no decryption).
func (m *Manager) List(ctx context.Context) ([]Info, error) {
	if _, err := school.FromContext(ctx); err != nil {
		return nil, err
	}
	rows, err := m.st.ListSigningKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("keys: list keys: %w", err)
	}
	sortNewestFirst(rows)
	out := make([]Info, len(rows))
	current := true
	for i, r := range rows {
		out[i] = Info{KID: r.KID, CreatedAt: r.CreatedAt, RetiredAt: r.RetiredAt}
		if r.RetiredAt == nil {
			out[i].Published = true
			out[i].Current = current
			current = false
		}
	}
	return out, nil
}

// school returns the cache entry of a school, creating it on first use.
func (m *Manager) school(id int64) *schoolCache {
	m.mu.RLock()
	sc := m.schools[id]
	m.mu.RUnlock()
	if sc != nil {
		return sc
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if sc = m.schools[id]; sc == nil {
		sc = &schoolCache{}
		m.schools[id] = sc
	}
	return sc
}

// snapshot returns the context school's cached view, loading it (and creating the first key)
// when it is missing or older than the TTL.
func (m *Manager) snapshot(ctx context.Context) (*snapshot, error) {
	if m.err != nil {
		return nil, m.err
	}
	t, err := school.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	sc := m.school(t.SchoolID)
	if s := sc.snap.Load(); s != nil && m.now().Before(s.expires) {
		return s, nil
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	// Another goroutine may have loaded it while this one waited.
	if s := sc.snap.Load(); s != nil && m.now().Before(s.expires) {
		return s, nil
	}
	s, err := m.load(ctx, t.SchoolID)
	if errors.Is(err, errNoKey) {
		if _, err = m.create(ctx, t.SchoolID, time.Time{}); err == nil {
			// Reload rather than use the key just made: a replica that created one at the
			// same moment may have made a newer one, and every replica must agree which.
			s, err = m.load(ctx, t.SchoolID)
		}
	}
	if err != nil {
		return nil, err
	}
	sc.snap.Store(s)
	return s, nil
}

var errNoKey = errors.New("keys: the school has no published signing key")

// load reads the school's keys and builds a snapshot: the current key decrypted and parsed,
// and the JWKS of every published key. It fails with errNoKey if none is published.
func (m *Manager) load(ctx context.Context, schoolID int64) (*snapshot, error) {
	rows, err := m.st.ListSigningKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("keys: list school %d's keys: %w", schoolID, err)
	}
	live := published(rows)
	if len(live) == 0 {
		return nil, errNoKey
	}
	cur := live[0]
	if cur.Algorithm != Algorithm {
		return nil, fmt.Errorf("keys: key %s of school %d has algorithm %q, want %s", cur.KID, schoolID, cur.Algorithm, Algorithm)
	}
	priv, err := m.sealer.open(schoolID, cur.KID, cur.PrivateKeyEncrypted)
	if err != nil {
		return nil, fmt.Errorf("school %d, key %s: %w", schoolID, cur.KID, err)
	}
	set := jose.JSONWebKeySet{Keys: make([]jose.JSONWebKey, 0, len(live))}
	for i, r := range live {
		jwk, err := parsePublicJWK(r)
		if err != nil {
			return nil, fmt.Errorf("school %d: %w", schoolID, err)
		}
		// The public half is stored beside the private one; a mismatch would publish a key
		// that cannot verify what we sign, so it is refused here rather than found by clients.
		if i == 0 && !jwk.Key.(*ecdsa.PublicKey).Equal(&priv.PublicKey) {
			return nil, fmt.Errorf("keys: key %s of school %d: stored public key does not match the private key", r.KID, schoolID)
		}
		set.Keys = append(set.Keys, jwk)
	}
	body, err := encodeJWKS(set)
	if err != nil {
		return nil, err
	}
	return &snapshot{
		current:  Key{KID: cur.KID, Private: priv, CreatedAt: cur.CreatedAt},
		jwks:     set,
		jwksJSON: body,
		expires:  m.now().Add(m.ttl),
	}, nil
}

// create generates, encrypts and stores a new key whose creation time is after notBefore, so
// that it sorts as the newest even if this replica's clock lags the one that made the last key.
func (m *Manager) create(ctx context.Context, schoolID int64, notBefore time.Time) (Key, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Key{}, fmt.Errorf("keys: generate: %w", err)
	}
	kid, err := newKID()
	if err != nil {
		return Key{}, err
	}
	sealed, err := m.sealer.seal(schoolID, kid, priv)
	if err != nil {
		return Key{}, err
	}
	pub, err := publicJWK(kid, &priv.PublicKey)
	if err != nil {
		return Key{}, err
	}
	// Stores keep microseconds; truncating here makes the returned time equal the stored one.
	created := m.now().UTC().Truncate(time.Microsecond)
	if !created.After(notBefore) {
		created = notBefore.UTC().Truncate(time.Microsecond).Add(time.Microsecond)
	}
	err = m.st.CreateSigningKey(ctx, storage.SigningKey{
		KID:                 kid,
		Algorithm:           Algorithm,
		PublicJWK:           pub,
		PrivateKeyEncrypted: sealed,
		CreatedAt:           created,
	})
	if err != nil {
		return Key{}, fmt.Errorf("keys: store new key for school %d: %w", schoolID, err)
	}
	return Key{KID: kid, Private: priv, CreatedAt: created}, nil
}

// newKID returns 128 random bits, base64url: unguessable, URL- and header-safe, and unrelated
// to the key or the secret, so it reveals nothing about either.
func newKID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("keys: kid: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// published returns the keys that are not retired, newest first.
func published(rows []storage.SigningKey) []storage.SigningKey {
	live := make([]storage.SigningKey, 0, len(rows))
	for _, r := range rows {
		if r.RetiredAt == nil {
			live = append(live, r)
		}
	}
	sortNewestFirst(live)
	return live
}

// sortNewestFirst orders keys by creation time, newest first, breaking ties by kid. The order
// is re-established here rather than trusted from the store so that every replica, whatever
// the backend does with equal timestamps, picks the same current key.
func sortNewestFirst(rows []storage.SigningKey) {
	slices.SortStableFunc(rows, func(a, b storage.SigningKey) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.KID, a.KID)
	})
}

func newestCreated(rows []storage.SigningKey) time.Time {
	var t time.Time
	for _, r := range rows {
		if r.CreatedAt.After(t) {
			t = r.CreatedAt
		}
	}
	return t
}
