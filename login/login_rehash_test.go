package login

import (
	"bytes"
	"context"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/storage"
)

const importedPassword = "imported from elsewhere"

// importedHashes are hashes of importedPassword as other platforms export them: PHP's bcrypt
// ($2y$, Laravel and Moodle), Django's PBKDF2 and passlib's.
func importedHashes(t *testing.T) map[string]string {
	t.Helper()
	b, err := bcrypt.GenerateFromPassword([]byte(importedPassword), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	salt := []byte("0123456789abcdef")
	key, err := pbkdf2.Key(sha256.New, importedPassword, salt, 1000, 32)
	if err != nil {
		t.Fatal(err)
	}
	adapted := func(b []byte) string { return strings.ReplaceAll(base64.RawStdEncoding.EncodeToString(b), "+", ".") }
	return map[string]string{
		"bcrypt":  "$2y$" + string(b[4:]),
		"django":  fmt.Sprintf("pbkdf2_sha256$1000$%s$%s", salt, base64.StdEncoding.EncodeToString(key)),
		"passlib": fmt.Sprintf("$pbkdf2-sha256$1000$%s$%s", adapted(salt), adapted(key)),
	}
}

// addMember creates a member with the given stored hash.
func (e *env) addMember(email, hash string) storage.Member {
	e.t.Helper()
	m, err := e.store.CreateMember(e.t.Context(), storage.Member{Email: email, Name: "Imported", PasswordHash: hash})
	if err != nil {
		e.t.Fatal(err)
	}
	return m
}

func (e *env) storedHash(id int64) string {
	e.t.Helper()
	m, err := e.store.GetMember(e.t.Context(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return m.PasswordHash
}

// A member whose hash came from another platform signs in with it; the sign-in replaces it by
// an argon2id hash at the default cost, and the same password signs in again against that.
func TestLoginRehashesImportedHash(t *testing.T) {
	for name, hash := range importedHashes(t) {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, nil)
			email := name + "@example.com"
			m := e.addMember(email, hash)

			if res := e.browser(hostA, false).login(email, importedPassword, "/x"); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("sign-in with the imported hash: %d\n%s", res.StatusCode, res.body)
			}
			after := e.storedHash(m.ID)
			if !strings.HasPrefix(after, "$argon2id$") || password.NeedsRehash(after) {
				t.Fatalf("stored hash after sign-in: %q", after)
			}
			if err := password.Verify(importedPassword, after); err != nil {
				t.Fatalf("new hash does not verify the password: %v", err)
			}

			if res := e.browser(hostA, false).login(email, importedPassword, "/x"); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("second sign-in: %d\n%s", res.StatusCode, res.body)
			}
			if again := e.storedHash(m.ID); again != after {
				t.Error("a current hash was replaced again")
			}
		})
	}
}

// A wrong password against an imported hash fails as any wrong password does, and leaves the
// hash alone.
func TestLoginImportedHashWrongPassword(t *testing.T) {
	e := newEnv(t, nil)
	hash := importedHashes(t)["bcrypt"]
	m := e.addMember("bcrypt@example.com", hash)
	res := e.browser(hostA, false).login("bcrypt@example.com", importedPassword+"!", "/x")
	if res.StatusCode != http.StatusOK || !strings.Contains(res.body, MsgLoginFailed) || res.cookie(SessionCookie) != nil {
		t.Fatalf("wrong password: %d\n%s", res.StatusCode, res.body)
	}
	if got := e.storedHash(m.ID); got != hash {
		t.Errorf("a failed sign-in changed the hash to %q", got)
	}
}

// racingStore changes the member's hash between the sign-in's check and its rehash, as a
// password change in another request would, or fails the rehash's update outright.
type racingStore struct {
	Store
	changeTo string
	fail     bool
	updates  sync.Mutex
}

func (s *racingStore) UpdateMember(ctx context.Context, id int64, fn func(storage.Member) (storage.Member, error)) (storage.Member, error) {
	s.updates.Lock()
	defer s.updates.Unlock()
	if s.fail {
		return storage.Member{}, fmt.Errorf("gormstore: update member: connection refused: %w", storage.ErrUnavailable)
	}
	if s.changeTo != "" {
		if _, err := s.Store.UpdateMember(ctx, id, func(m storage.Member) (storage.Member, error) {
			m.PasswordHash = s.changeTo
			return m, nil
		}); err != nil {
			return storage.Member{}, err
		}
	}
	return s.Store.UpdateMember(ctx, id, fn)
}

// A hash changed after the sign-in verified the old one is kept: the rehash does not overwrite
// a newer password. The sign-in itself succeeds.
func TestLoginRehashKeepsConcurrentChange(t *testing.T) {
	changed, err := password.Hash("the newer password", cheap)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(d *Deps) { d.Store = &racingStore{Store: d.Store, changeTo: changed} })
	m := e.addMember("django@example.com", importedHashes(t)["django"])
	if res := e.browser(hostA, false).login("django@example.com", importedPassword, "/x"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d\n%s", res.StatusCode, res.body)
	}
	if got := e.storedHash(m.ID); got != changed {
		t.Errorf("stored hash %q, want the concurrent change kept", got)
	}
}

// A rehash that cannot be stored does not fail the sign-in; it is logged, without the hash or
// the password.
func TestLoginRehashFailureIsLogged(t *testing.T) {
	var (
		mu  sync.Mutex
		buf bytes.Buffer
	)
	hash := importedHashes(t)["bcrypt"]
	e := newEnv(t, func(d *Deps) {
		d.Store = &racingStore{Store: d.Store, fail: true}
		d.Logger = slog.New(slog.NewJSONHandler(&lockedWriter{mu: &mu, w: &buf}, nil))
	})
	m := e.addMember("bcrypt@example.com", hash)
	if res := e.browser(hostA, false).login("bcrypt@example.com", importedPassword, "/x"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d\n%s", res.StatusCode, res.body)
	}
	if got := e.storedHash(m.ID); got != hash {
		t.Errorf("stored hash changed to %q", got)
	}
	mu.Lock()
	logged := buf.String()
	mu.Unlock()
	if !strings.Contains(logged, "password hash not upgraded") || !strings.Contains(logged, "connection refused") {
		t.Errorf("no log line for the failed rehash:\n%s", logged)
	}
	for _, secret := range []string{hash, hash[7:], importedPassword, "$argon2id$"} {
		if strings.Contains(logged, secret) {
			t.Errorf("log holds %q:\n%s", secret, logged)
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
