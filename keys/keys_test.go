package keys

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// clock is a manual clock shared by the Managers of one test.
type clock = schools.Clock

func newClock() *clock { return schools.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) }

// countingStore counts the queries a Manager makes, to show the hot path makes none.
type countingStore struct {
	storage.SigningKeys
	lists atomic.Int64
}

func (c *countingStore) ListSigningKeys(ctx context.Context) ([]storage.SigningKey, error) {
	c.lists.Add(1)
	return c.SigningKeys.ListSigningKeys(ctx)
}

// testSchools are schools 1 ("a") and 2 ("b").
var testSchools = []config.School{
	schools.File(1, "a", "A", "https://a.example"),
	schools.File(2, "b", "B", "https://b.example"),
}

// openStore returns a migrated SQLite store with schools 1 and 2, and a context for school 1.
func openStore(t testing.TB) (storage.SigningKeys, context.Context) {
	t.Helper()
	st := storetest.Open(t, gormstore.DriverSQLite)
	schools.Sync(t, st, testSchools...)
	return st, schoolContext(t, 1)
}

// schoolContext is a context, not the test's, carrying school id of testSchools.
func schoolContext(t testing.TB, id int64) context.Context {
	return school.NewContext(context.Background(), schools.School(t, testSchools[id-1]))
}

func kids(set jose.JSONWebKeySet) []string {
	out := make([]string, len(set.Keys))
	for i, k := range set.Keys {
		out[i] = k.KeyID
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// must calls f (a Manager's or the store's method) and stops the test on an error, for the
// steps that only set up what a test then checks.
func must[T any](t testing.TB, f func(context.Context) (T, error), ctx context.Context) T {
	t.Helper()
	v, err := f(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// sign signs payload with k into a compact JWS, with the kid in the header.
func sign(t testing.TB, k Key, payload []byte) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: k.Private, KeyID: k.KID}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	compact, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return compact
}

// signAndVerify signs with k and verifies against set by the kid in the header, as an ID-token
// client would.
func signAndVerify(t *testing.T, k Key, set jose.JSONWebKeySet) {
	t.Helper()
	compact := sign(t, k, []byte(`{"sub":"1"}`))
	parsed, err := jose.ParseSigned(compact, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	kid := parsed.Signatures[0].Header.KeyID
	found := set.Key(kid)
	if len(found) != 1 {
		t.Fatalf("kid %s: %d keys in the JWKS %v", kid, len(found), kids(set))
	}
	if _, err := parsed.Verify(found[0].Key); err != nil {
		t.Fatalf("verify with kid %s: %v", kid, err)
	}
}

func TestCurrentCreatesOnce(t *testing.T) {
	st, ctx := openStore(t)
	clk := newClock()
	m := NewManager(st, testSecret(1), Options{Now: clk.Now})
	k1 := must(t, m.Current, ctx)
	if k1.KID == "" || k1.Private == nil || k1.Private.Curve.Params().Name != "P-256" {
		t.Fatalf("bad key %+v", k1)
	}
	if len(k1.KID) != 22 { // 16 bytes, base64url without padding
		t.Fatalf("kid %q: want 22 characters", k1.KID)
	}
	clk.Advance(time.Hour) // past the cache: the second call reads the store again
	k2 := must(t, m.Current, ctx)
	if k2.KID != k1.KID || !k2.Private.Equal(k1.Private) || !k2.CreatedAt.Equal(k1.CreatedAt) {
		t.Fatalf("second Current gave another key: %s then %s", k1.KID, k2.KID)
	}
	// Another replica finds the same key rather than making its own.
	k3 := must(t, NewManager(st, testSecret(1), Options{Now: clk.Now}).Current, ctx)
	if k3.KID != k1.KID {
		t.Fatalf("second Manager: kid %s, want %s", k3.KID, k1.KID)
	}
	rows := must(t, st.ListSigningKeys, ctx)
	if len(rows) != 1 || rows[0].Algorithm != "ES256" || rows[0].RetiredAt != nil {
		t.Fatalf("stored rows: %+v", rows)
	}
	// Stored encrypted: the row decrypts to the key, and holds no PKCS#8 in the clear.
	if priv, err := m.sealer.open(1, k1.KID, rows[0].PrivateKeyEncrypted); err != nil || !priv.Equal(k1.Private) {
		t.Fatalf("stored row does not decrypt to the key: %v", err)
	}
	// Each school has its own key.
	other := must(t, m.Current, schoolContext(t, 2))
	if other.KID == k1.KID || other.Private.Equal(k1.Private) {
		t.Fatal("school 2 got school 1's key")
	}
}

func TestCurrentNeedsSchool(t *testing.T) {
	st, _ := openStore(t)
	m := NewManager(st, testSecret(1), Options{})
	if _, err := m.Current(context.Background()); !errors.Is(err, school.ErrNoSchool) {
		t.Fatalf("Current: err = %v, want ErrNoSchool", err)
	}
	if _, err := m.Rotate(context.Background()); !errors.Is(err, school.ErrNoSchool) {
		t.Fatalf("Rotate: err = %v, want ErrNoSchool", err)
	}
	if _, err := m.PublicKeys(context.Background()); !errors.Is(err, school.ErrNoSchool) {
		t.Fatalf("PublicKeys: err = %v, want ErrNoSchool", err)
	}
}

func TestShortSecretFailsEveryCall(t *testing.T) {
	st, ctx := openStore(t)
	m := NewManager(st, config.Secret("too short"), Options{})
	if _, err := m.Current(ctx); err == nil {
		t.Fatal("Current worked with a short secret")
	}
	if _, err := m.Rotate(ctx); err == nil {
		t.Fatal("Rotate worked with a short secret")
	}
	if rows, _ := st.ListSigningKeys(ctx); len(rows) != 0 {
		t.Fatalf("%d keys stored under a short secret", len(rows))
	}
}

func TestRotate(t *testing.T) {
	st, ctx := openStore(t)
	// A clock that never moves: the rotation must still make the new key the newest.
	clk := newClock()
	m := NewManager(st, testSecret(1), Options{Now: clk.Now})
	k1 := must(t, m.Current, ctx)
	k2 := must(t, m.Rotate, ctx)
	if k2.KID == k1.KID {
		t.Fatal("Rotate returned the old key")
	}
	cur := must(t, m.Current, ctx)
	if cur.KID != k2.KID {
		t.Fatalf("after Rotate, Current = %s, want %s (no wait for the cache)", cur.KID, k2.KID)
	}
	set := must(t, m.PublicKeys, ctx)
	if got := kids(set); !equalStrings(got, []string{k2.KID, k1.KID}) {
		t.Fatalf("JWKS kids %v, want [new previous]", got)
	}
	// A token signed with the previous key just before the rotation still verifies.
	signAndVerify(t, k1, set)
	signAndVerify(t, k2, set)

	k3 := must(t, m.Rotate, ctx)
	set = must(t, m.PublicKeys, ctx)
	if got := kids(set); !equalStrings(got, []string{k3.KID, k2.KID}) {
		t.Fatalf("JWKS kids %v, want [%s %s]", got, k3.KID, k2.KID)
	}
	list := must(t, m.List, ctx)
	if len(list) != 3 {
		t.Fatalf("List: %d keys, want 3", len(list))
	}
	want := []struct {
		kid                       string
		current, published, retir bool
	}{{k3.KID, true, true, false}, {k2.KID, false, true, false}, {k1.KID, false, false, true}}
	for i, w := range want {
		got := list[i]
		if got.KID != w.kid || got.Current != w.current || got.Published != w.published || (got.RetiredAt != nil) != w.retir {
			t.Errorf("List[%d] = %+v, want kid %s current %t published %t retired %t", i, got, w.kid, w.current, w.published, w.retir)
		}
	}
}

func TestRotateWithoutKey(t *testing.T) {
	st, ctx := openStore(t)
	m := NewManager(st, testSecret(1), Options{})
	k := must(t, m.Rotate, ctx)
	set := must(t, m.PublicKeys, ctx)
	if got := kids(set); !equalStrings(got, []string{k.KID}) {
		t.Fatalf("JWKS kids %v, want [%s]", got, k.KID)
	}
}

func TestCacheTTLAcrossReplicas(t *testing.T) {
	st, ctx := openStore(t)
	clk := newClock()
	const ttl = 30 * time.Second
	a := NewManager(st, testSecret(1), Options{Now: clk.Now, CacheTTL: ttl})
	b := NewManager(st, testSecret(1), Options{Now: clk.Now, CacheTTL: ttl})
	k1 := must(t, a.Current, ctx)
	clk.Advance(time.Second)
	k2 := must(t, b.Rotate, ctx)
	// a loaded at t0 and keeps its view until t0+TTL.
	check := func(when string, wantKID string, wantJWKS []string) {
		t.Helper()
		k := must(t, a.Current, ctx)
		set := must(t, a.PublicKeys, ctx)
		if k.KID != wantKID || !equalStrings(kids(set), wantJWKS) {
			t.Fatalf("%s: Current %s JWKS %v, want %s %v", when, k.KID, kids(set), wantKID, wantJWKS)
		}
	}
	check("just after the rotation", k1.KID, []string{k1.KID})
	clk.Advance(ttl - time.Second - time.Nanosecond)
	check("just before the TTL", k1.KID, []string{k1.KID})
	clk.Advance(time.Nanosecond)
	check("at the TTL", k2.KID, []string{k2.KID, k1.KID})
}

func TestHotPathMakesNoQuery(t *testing.T) {
	st, ctx := openStore(t)
	cs := &countingStore{SigningKeys: st}
	clk := newClock()
	m := NewManager(cs, testSecret(1), Options{Now: clk.Now})
	first := must(t, m.Current, ctx)
	before := cs.lists.Load()
	for range 100 {
		k := must(t, m.Current, ctx)
		if k.Private != first.Private {
			t.Fatal("the cached key was parsed again")
		}
		must(t, m.PublicKeys, ctx)
	}
	if n := cs.lists.Load() - before; n != 0 {
		t.Fatalf("%d queries on the hot path", n)
	}
	clk.Advance(DefaultCacheTTL)
	must(t, m.Current, ctx)
	if n := cs.lists.Load() - before; n != 1 {
		t.Fatalf("%d queries after the TTL, want 1", n)
	}
}

func TestPublicKeysCannotChangeCache(t *testing.T) {
	st, ctx := openStore(t)
	m := NewManager(st, testSecret(1), Options{})
	set := must(t, m.PublicKeys, ctx)
	kid := set.Keys[0].KeyID
	set.Keys[0].KeyID = "changed"
	again := must(t, m.PublicKeys, ctx)
	if again.Keys[0].KeyID != kid {
		t.Fatal("editing the returned set changed the cache")
	}
}

func TestConcurrentFirstUse(t *testing.T) {
	st, ctx := openStore(t)
	// Two replicas, many requests each, on a school with no key.
	replicas := []*Manager{
		NewManager(st, testSecret(1), Options{}),
		NewManager(st, testSecret(1), Options{}),
	}
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	got := make(chan Key, 32)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := replicas[i%2].Current(ctx)
			if err != nil {
				errs <- err
				return
			}
			got <- k
		}()
	}
	wg.Wait()
	close(errs)
	close(got)
	for err := range errs {
		t.Fatal(err)
	}
	rows := must(t, st.ListSigningKeys, ctx)
	// At most one key per replica, however many requests raced.
	if len(rows) < 1 || len(rows) > len(replicas) {
		t.Fatalf("%d keys stored", len(rows))
	}
	// Every key handed out is published by every replica once its cache has been refreshed.
	fresh := must(t, NewManager(st, testSecret(1), Options{}).PublicKeys, ctx)
	for k := range got {
		signAndVerify(t, k, fresh)
	}
}

func TestWrongSecret(t *testing.T) {
	st, ctx := openStore(t)
	clk := newClock()
	good := NewManager(st, testSecret(1), Options{Now: clk.Now})
	k1 := must(t, good.Current, ctx)
	bad := NewManager(st, testSecret(2), Options{Now: clk.Now})
	if _, err := bad.Current(ctx); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("Current with another secret: err = %v, want ErrDecrypt", err)
	}
	// Rotating under another secret would store a key the servers cannot open: refused.
	if _, err := bad.Rotate(ctx); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("Rotate with another secret: err = %v, want ErrDecrypt", err)
	}
	if rows, _ := st.ListSigningKeys(ctx); len(rows) != 1 {
		t.Fatalf("%d keys after a refused rotation, want 1", len(rows))
	}
	// After a deliberate change of secret, the recovery path replaces the key.
	k2 := must(t, bad.RotateAfterSecretChange, ctx)
	if cur, err := bad.Current(ctx); err != nil || cur.KID != k2.KID {
		t.Fatalf("after recovery: %v %v", cur.KID, err)
	}
	set := must(t, bad.PublicKeys, ctx)
	if got := kids(set); !equalStrings(got, []string{k2.KID, k1.KID}) {
		t.Fatalf("JWKS kids %v", got)
	}
}

func TestRowCopiedToAnotherSchool(t *testing.T) {
	st, ctx := openStore(t)
	m := NewManager(st, testSecret(1), Options{})
	k := must(t, m.Current, ctx)
	rows := must(t, st.ListSigningKeys, ctx)
	// kid is unique across schools, so the copy takes a new one; the AAD binds both.
	row := rows[0]
	row.KID = k.KID + "x"
	ctx2 := schoolContext(t, 2)
	if err := st.CreateSigningKey(ctx2, row); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Current(ctx2); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("copied row: err = %v, want ErrDecrypt", err)
	}
}

func BenchmarkSignES256(b *testing.B) {
	st, ctx := openStore(b)
	m := NewManager(st, testSecret(1), Options{})
	must(b, m.Current, ctx)
	payload := []byte(`{"iss":"https://a.example","sub":"1","aud":"client","exp":1900000000,"nonce":"n"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		sign(b, must(b, m.Current, ctx), payload)
	}
}
