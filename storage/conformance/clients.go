package conformance

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/proctorhq/proctor/storage"
)

// oauthSetup syncs schools A and B and creates a member whom both schools' grants can name.
func oauthSetup(t *testing.T, s storage.Store) (ctxA, ctxB context.Context, memberID int64) {
	t.Helper()
	ctxA, ctxB = syncSchools(t, s)
	m, err := s.CreateMember(t.Context(), storage.Member{Email: "ada@example.test", Name: "Ada"})
	must(t, "CreateMember", err)
	return ctxA, ctxB, m.ID
}

// otherMember creates Grace, a member beside oauthSetup's Ada.
func otherMember(t *testing.T, s storage.Store) storage.Member {
	t.Helper()
	m, err := s.CreateMember(t.Context(), storage.Member{Email: "grace@example.test", Name: "Grace"})
	must(t, "CreateMember", err)
	return m
}

// publicClient is a member client authenticating with "none".
func publicClient(id string) storage.Client {
	return storage.Client{
		ID:                      id,
		Kind:                    storage.ClientMember,
		Name:                    "App " + id,
		TokenEndpointAuthMethod: storage.AuthMethodNone,
		ApplicationType:         "native",
		RedirectURIs:            []string{"http://127.0.0.1/callback", "com.example.app:/cb"},
		Scopes:                  []string{"account:read", "openid"},
	}
}

// confidentialClient is a web client of kind that authenticates with a posted secret (its
// stored hash is secretHash) and redirects to https://<id>.example.test/cb.
func confidentialClient(id string, kind storage.ClientKind, name, secretHash string, scopes ...string) storage.Client {
	return storage.Client{
		ID: id, Kind: kind, Name: name, SecretHash: secretHash,
		TokenEndpointAuthMethod: storage.AuthMethodSecretPost, ApplicationType: "web",
		RedirectURIs: []string{"https://" + id + ".example.test/cb"}, Scopes: scopes,
	}
}

func testClients(t *testing.T, s storage.Store) {
	ctxA, ctxB, _ := oauthSetup(t, s)

	pub, err := s.CreateClient(ctxA, publicClient("pub"))
	must(t, "CreateClient", err)
	if pub.CreatedAt.IsZero() || !pub.UpdatedAt.Equal(pub.CreatedAt) {
		t.Errorf("created client stamps: %v, %v", pub.CreatedAt, pub.UpdatedAt)
	}
	want := publicClient("pub")
	want.CreatedAt, want.UpdatedAt = pub.CreatedAt, pub.UpdatedAt
	wantEqual(t, "CreateClient's result", pub, want)
	got, err := s.GetClient(ctxA, "pub")
	must(t, "GetClient", err)
	wantEqual(t, "GetClient", got, want)

	conf := confidentialClient("ops", storage.ClientOperator, "Back office", "keyed-hash-of-secret", "operator:read")
	created, err := s.CreateClient(ctxA, conf)
	must(t, "CreateClient(confidential)", err)
	got, err = s.GetClient(ctxA, "ops")
	must(t, "GetClient(confidential)", err)
	wantEqual(t, "confidential client", got, created)
	if got.SecretHash != conf.SecretHash {
		t.Errorf("secret hash %q, want %q", got.SecretHash, conf.SecretHash)
	}

	// Without lists, a client reads back with empty ones.
	bare := storage.Client{ID: "bare", Kind: storage.ClientMember, TokenEndpointAuthMethod: storage.AuthMethodNone, ApplicationType: "web"}
	_, err = s.CreateClient(ctxA, bare)
	must(t, "CreateClient(bare)", err)
	got, err = s.GetClient(ctxA, "bare")
	must(t, "GetClient(bare)", err)
	if len(got.RedirectURIs) != 0 || len(got.Scopes) != 0 {
		t.Errorf("bare client lists: %v, %v", got.RedirectURIs, got.Scopes)
	}

	// Client ids are global: taken at A means taken at B too.
	_, err = s.CreateClient(ctxA, publicClient("pub"))
	wantErr(t, "CreateClient with a taken id", err, storage.ErrAlreadyExists)
	_, err = s.CreateClient(ctxB, publicClient("pub"))
	wantErr(t, "CreateClient at B with an id taken at A", err, storage.ErrAlreadyExists)

	_, err = s.GetClient(ctxA, "nobody")
	wantErr(t, "GetClient of an unknown id", err, storage.ErrNotFound)

	for name, change := range map[string]func(*storage.Client){
		"empty id":                  func(c *storage.Client) { c.ID = "" },
		"unknown kind":              func(c *storage.Client) { c.Kind = "robot" },
		"unknown auth method":       func(c *storage.Client) { c.TokenEndpointAuthMethod = "client_secret_basic" },
		"public client with secret": func(c *storage.Client) { c.SecretHash = "x" },
		"confidential, no secret":   func(c *storage.Client) { c.TokenEndpointAuthMethod = storage.AuthMethodSecretPost },
		"unknown application type":  func(c *storage.Client) { c.ApplicationType = "desktop" },
	} {
		c := publicClient("invalid")
		change(&c)
		_, err := s.CreateClient(ctxA, c)
		wantErr(t, "CreateClient with "+name, err, storage.ErrInvalidArgument)
	}
	_, err = s.GetClient(ctxA, "invalid")
	wantErr(t, "GetClient of a refused client", err, storage.ErrNotFound)
}

func testListClients(t *testing.T, s storage.Store) {
	ctxA, ctxB, _ := oauthSetup(t, s)
	var all []storage.Client
	for i, id := range []string{"m-3", "o-1", "m-1", "m-2", "o-2", "m-0", "o-0"} {
		c := publicClient(id)
		if id[0] == 'o' {
			c.Kind = storage.ClientOperator
		}
		created, err := s.CreateClient(ctxA, c)
		must(t, "CreateClient", err)
		all = append(all, created)
		if i == 0 {
			_, err := s.CreateClient(ctxB, publicClient("b-only"))
			must(t, "CreateClient at B", err)
		}
	}
	// Oldest first; clients created within one clock tick are ordered by id.
	slices.SortStableFunc(all, func(a, b storage.Client) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	walk := func(kind storage.ClientKind, first int) []storage.Client {
		var out []storage.Client
		for after, pages := "", 0; ; pages++ {
			if pages > 20 {
				t.Fatal("ListClients does not end")
			}
			page, next, err := s.ListClients(ctxA, kind, storage.Page{First: first, After: after})
			must(t, "ListClients", err)
			out = append(out, page...)
			if next == "" {
				return out
			}
			if len(page) == 0 {
				t.Fatal("empty page with a next cursor")
			}
			after = next
		}
	}
	for _, first := range []int{0, 1, 2, 3, 7} {
		wantEqual(t, "all clients", walk("", first), all)
	}
	var operators []storage.Client
	for _, c := range all {
		if c.Kind == storage.ClientOperator {
			operators = append(operators, c)
		}
	}
	wantEqual(t, "operator clients", walk(storage.ClientOperator, 2), operators)
	if got := walk(storage.ClientMember, 2); len(got) != 4 {
		t.Errorf("%d member clients listed at A, want 4", len(got))
	}

	// A cursor the store did not write is malformed input.
	for _, bad := range []string{"%%%", "bm90IGEgY3Vyc29y"} {
		_, _, err := s.ListClients(ctxA, "", storage.Page{After: bad})
		wantErr(t, "ListClients with cursor "+bad, err, storage.ErrInvalidArgument)
	}
}

func testUpdateClient(t *testing.T, s storage.Store) {
	ctxA, ctxB, _ := oauthSetup(t, s)
	conf := confidentialClient("c", storage.ClientMember, "Old", "h1", "account:read")
	orig, err := s.CreateClient(ctxA, conf)
	must(t, "CreateClient", err)

	updated, err := s.UpdateClient(ctxA, "c", func(c storage.Client) (storage.Client, error) {
		wantEqual(t, "client given to fn", c, orig)
		c.Name = "New"
		c.SecretHash = "" // becomes public
		c.TokenEndpointAuthMethod = storage.AuthMethodNone
		c.RedirectURIs = append(c.RedirectURIs, "https://c.example.test/cb2")
		c.Scopes = nil
		return c, nil
	})
	must(t, "UpdateClient", err)
	if !updated.CreatedAt.Equal(orig.CreatedAt) || updated.UpdatedAt.Before(orig.UpdatedAt) {
		t.Errorf("stamps after update: created %v (was %v), updated %v", updated.CreatedAt, orig.CreatedAt, updated.UpdatedAt)
	}
	got, err := s.GetClient(ctxA, "c")
	must(t, "GetClient", err)
	wantEqual(t, "updated client", got, updated)
	if got.Name != "New" || got.SecretHash != "" || got.TokenEndpointAuthMethod != storage.AuthMethodNone ||
		len(got.RedirectURIs) != 2 || len(got.Scopes) != 0 {
		t.Errorf("updated client %+v", got)
	}

	// fn's error aborts the update and comes back as is.
	boom := errors.New("boom")
	_, err = s.UpdateClient(ctxA, "c", func(c storage.Client) (storage.Client, error) {
		c.Name = "Lost"
		return c, boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("UpdateClient with failing fn: %v", err)
	}
	_, err = s.UpdateClient(ctxA, "c", func(c storage.Client) (storage.Client, error) {
		c.ID = "other"
		return c, nil
	})
	wantErr(t, "UpdateClient changing the id", err, storage.ErrInvalidArgument)
	_, err = s.UpdateClient(ctxA, "c", func(c storage.Client) (storage.Client, error) {
		c.Kind = "robot"
		return c, nil
	})
	wantErr(t, "UpdateClient to an unknown kind", err, storage.ErrInvalidArgument)
	got, err = s.GetClient(ctxA, "c")
	must(t, "GetClient", err)
	wantEqual(t, "client after refused updates", got, updated)

	for _, tc := range []struct {
		name string
		ctx  context.Context
		id   string
	}{{"an unknown id", ctxA, "nobody"}, {"A's client at B", ctxB, "c"}} {
		_, err = s.UpdateClient(tc.ctx, tc.id, func(c storage.Client) (storage.Client, error) {
			t.Errorf("UpdateClient of %s called fn", tc.name)
			return c, nil
		})
		wantErr(t, "UpdateClient of "+tc.name, err, storage.ErrNotFound)
	}
}

func testDeleteClient(t *testing.T, s storage.Store) {
	ctxA, ctxB, member := oauthSetup(t, s)
	_, err := s.CreateClient(ctxA, publicClient("gone"))
	must(t, "CreateClient", err)
	_, err = s.CreateClient(ctxA, publicClient("stays"))
	must(t, "CreateClient", err)

	earlier := at(5, 0)
	p1 := mustPair(t, s, ctxA, pairOf("gone", "g1", "1", member))
	oldRevoked := pairOf("gone", "g1", "0", member)
	oldRevoked.RevokedAt = ptr(earlier)
	p0 := mustPair(t, s, ctxA, oldRevoked)
	p2 := mustPair(t, s, ctxA, pairOf("gone", "g2", "2", member))
	other := mustPair(t, s, ctxA, pairOf("stays", "s1", "3", member))
	// A grant at B naming the same client id (as a client known by its metadata URL would)
	// is B's, and not touched by a deletion at A.
	atB := mustPair(t, s, ctxB, pairOf("gone", "b1", "4", member))
	must(t, "CreateCodeGrant", s.CreateCodeGrant(ctxA, storage.CodeGrant{Code: codeOf("gone", "g3", "code-gone", member)}))
	must(t, "CreateCodeGrant", s.CreateCodeGrant(ctxA, storage.CodeGrant{Code: codeOf("stays", "s2", "code-stays", member)}))
	must(t, "CreateCodeGrant", s.CreateCodeGrant(ctxB, storage.CodeGrant{Code: codeOf("gone", "b2", "code-gone-b", member)}))

	wantErr(t, "DeleteClient at B of A's client", s.DeleteClient(ctxB, "gone", at(6, 0)), storage.ErrNotFound)
	when := at(6, 0)
	must(t, "DeleteClient", s.DeleteClient(ctxA, "gone", when))
	_, err = s.GetClient(ctxA, "gone")
	wantErr(t, "GetClient of a deleted client", err, storage.ErrNotFound)
	wantErr(t, "DeleteClient again", s.DeleteClient(ctxA, "gone", when), storage.ErrNotFound)

	for _, p := range []storage.TokenPair{p1, p2} {
		got := getPair(t, s, ctxA, p.AccessSignature)
		if got.RevokedAt == nil || !got.RevokedAt.Equal(when) {
			t.Errorf("pair %s of the deleted client: revoked at %v, want %v", p.AccessSignature, got.RevokedAt, when)
		}
	}
	if got := getPair(t, s, ctxA, p0.AccessSignature); got.RevokedAt == nil || !got.RevokedAt.Equal(earlier) {
		t.Errorf("pair revoked before the deletion: revoked at %v, want %v", got.RevokedAt, earlier)
	}
	if got := getPair(t, s, ctxA, other.AccessSignature); got.RevokedAt != nil {
		t.Error("another client's pair was revoked")
	}
	if got := getPair(t, s, ctxB, atB.AccessSignature); got.RevokedAt != nil {
		t.Error("school B's pair naming the same client id was revoked")
	}
	for sig, want := range map[string]bool{"code-gone": false, "code-stays": true} {
		if c := getCode(t, s, ctxA, sig).Code; c.Active != want {
			t.Errorf("code %s active %v, want %v", sig, c.Active, want)
		}
	}
	if c := getCode(t, s, ctxB, "code-gone-b").Code; !c.Active {
		t.Error("school B's code naming the same client id was deactivated")
	}
	if _, err := s.GetClient(ctxA, "stays"); err != nil {
		t.Errorf("the other client: %v", err)
	}
}
