package conformance

import (
	"testing"

	"github.com/proctorhq/proctor/storage"
)

func signingKey(kid string, day int) storage.SigningKey {
	return storage.SigningKey{
		KID:       kid,
		Algorithm: "ES256",
		PublicJWK: []byte(`{"kty":"EC","crv":"P-256","kid":"` + kid + `"}`),
		// Sealed bytes are binary: zero bytes and invalid UTF-8 must survive.
		PrivateKeyEncrypted: []byte{0, 1, 2, 0xff, 0xfe, 0, byte(day)},
		CreatedAt:           at(day, 12),
	}
}

func testSigningKeys(t *testing.T, s storage.Store) {
	ctxA, ctxB, _ := oauthSetup(t, s)
	keys, err := s.ListSigningKeys(ctxA)
	must(t, "ListSigningKeys", err)
	if len(keys) != 0 {
		t.Errorf("%d keys before any was created", len(keys))
	}
	for _, k := range []storage.SigningKey{signingKey("k2", 2), signingKey("k1", 1), signingKey("k3", 3)} {
		must(t, "CreateSigningKey", s.CreateSigningKey(ctxA, k))
	}
	must(t, "CreateSigningKey at B", s.CreateSigningKey(ctxB, signingKey("kb", 4)))
	keys, err = s.ListSigningKeys(ctxA)
	must(t, "ListSigningKeys", err)
	wantEqual(t, "school A's keys, newest first", keys, []storage.SigningKey{signingKey("k3", 3), signingKey("k2", 2), signingKey("k1", 1)})

	wantErr(t, "CreateSigningKey with a taken kid", s.CreateSigningKey(ctxA, signingKey("k1", 5)), storage.ErrAlreadyExists)
	wantErr(t, "CreateSigningKey at B with a kid taken at A", s.CreateSigningKey(ctxB, signingKey("k1", 5)), storage.ErrAlreadyExists)
	noKey := signingKey("k9", 5)
	noKey.PrivateKeyEncrypted = nil
	wantErr(t, "CreateSigningKey without a private key", s.CreateSigningKey(ctxA, noKey), storage.ErrInvalidArgument)

	must(t, "RetireSigningKey", s.RetireSigningKey(ctxA, "k1", at(6, 0)))
	// Retiring again (a second replica rotating) keeps the first stamp.
	must(t, "RetireSigningKey again", s.RetireSigningKey(ctxA, "k1", at(7, 0)))
	keys, err = s.ListSigningKeys(ctxA)
	must(t, "ListSigningKeys", err)
	retired := signingKey("k1", 1)
	retired.RetiredAt = ptr(at(6, 0))
	wantEqual(t, "keys after a retirement", keys, []storage.SigningKey{signingKey("k3", 3), signingKey("k2", 2), retired})
	wantErr(t, "RetireSigningKey of an unknown kid", s.RetireSigningKey(ctxA, "nope", at(6, 0)), storage.ErrNotFound)
}

func testLoginSessions(t *testing.T, s storage.Store) {
	ctxA, ctxB, member := oauthSetup(t, s)
	ls := storage.LoginSession{ID: "hash-1", MemberID: member, CreatedAt: at(1, 8), LastSeenAt: at(1, 8), ExpiresAt: at(15, 8)}
	must(t, "CreateLoginSession", s.CreateLoginSession(ctxA, ls))
	got, m, err := s.GetLoginSession(ctxA, "hash-1")
	must(t, "GetLoginSession", err)
	wantEqual(t, "stored session", got, ls)
	if m.ID != member || m.Email == "" || m.CreatedAt.IsZero() {
		t.Errorf("the session's member: %+v, want member %d", m, member)
	}
	// The member's roles come with the session: this school's only, most powerful first.
	must(t, "SetRoles", s.SetRoles(ctxA, member, []storage.Role{storage.RoleStudent, storage.RoleAdmin}))
	must(t, "SetRoles at B", s.SetRoles(ctxB, member, []storage.Role{storage.RoleOwner}))
	got, _, err = s.GetLoginSession(ctxA, "hash-1")
	must(t, "GetLoginSession", err)
	wantEqual(t, "the session's roles", got.Roles, []storage.Role{storage.RoleAdmin, storage.RoleStudent})
	must(t, "SetRoles", s.SetRoles(ctxA, member, nil))

	wantErr(t, "CreateLoginSession with a taken id", s.CreateLoginSession(ctxA, ls), storage.ErrAlreadyExists)
	unknown := ls
	unknown.ID, unknown.MemberID = "hash-2", member+1000
	wantErr(t, "CreateLoginSession for an unknown member", s.CreateLoginSession(ctxA, unknown), storage.ErrNotFound)
	empty := ls
	empty.ID = ""
	wantErr(t, "CreateLoginSession without an id", s.CreateLoginSession(ctxA, empty), storage.ErrInvalidArgument)
	_, _, err = s.GetLoginSession(ctxA, "nope")
	wantErr(t, "GetLoginSession of an unknown id", err, storage.ErrNotFound)

	// A session created without LastSeenAt was last seen when it was created.
	fresh := storage.LoginSession{ID: "hash-3", MemberID: member, CreatedAt: at(2, 8), ExpiresAt: at(16, 8)}
	must(t, "CreateLoginSession", s.CreateLoginSession(ctxA, fresh))
	if got, _, err := s.GetLoginSession(ctxA, "hash-3"); err != nil || !got.LastSeenAt.Equal(at(2, 8)) {
		t.Errorf("fresh session: %+v, %v", got, err)
	}

	must(t, "TouchLoginSession", s.TouchLoginSession(ctxA, "hash-1", at(3, 9)))
	// Touches arriving out of order never move LastSeenAt back.
	must(t, "TouchLoginSession with an earlier time", s.TouchLoginSession(ctxA, "hash-1", at(2, 9)))
	got, _, err = s.GetLoginSession(ctxA, "hash-1")
	must(t, "GetLoginSession", err)
	ls.LastSeenAt = at(3, 9)
	wantEqual(t, "touched session", got, ls)
	wantErr(t, "TouchLoginSession of an unknown id", s.TouchLoginSession(ctxA, "nope", at(3, 9)), storage.ErrNotFound)

	must(t, "DeleteLoginSession", s.DeleteLoginSession(ctxA, "hash-1"))
	_, _, err = s.GetLoginSession(ctxA, "hash-1")
	wantErr(t, "GetLoginSession of a deleted session", err, storage.ErrNotFound)
	wantErr(t, "DeleteLoginSession twice", s.DeleteLoginSession(ctxA, "hash-1"), storage.ErrNotFound)
	if _, _, err := s.GetLoginSession(ctxA, "hash-3"); err != nil {
		t.Errorf("another session went with the deleted one: %v", err)
	}
}
