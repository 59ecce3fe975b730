package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/storage"
)

// Store is what the manager writes: the school-scoped client table of the context's school.
type Store interface {
	// CreateClient stores c; storage.ErrAlreadyExists if its id is taken.
	CreateClient(ctx context.Context, c storage.Client) (storage.Client, error)
	// UpdateClient applies fn under a row lock.
	UpdateClient(ctx context.Context, id string, fn func(storage.Client) (storage.Client, error)) (storage.Client, error)
	// DeleteClient deletes the client and revokes everything it holds, in one transaction.
	DeleteClient(ctx context.Context, id string, at time.Time) error
}

// ErrPublic means a secret was asked of a public client, which has none.
var ErrPublic = errors.New("client: a public client has no secret")

// Manager creates, rotates and deletes the clients operators make, holding each to the same
// rules whichever way it was asked for (the operator pages, the CLI). The server builds one and
// hands it to the authorization server, which checks secrets with its hasher, and to the
// operator pages.
type Manager struct {
	store  Store
	hasher *SecretHasher
}

// NewManager returns the manager of the clients in st, whose secrets are hashed under the
// system secret.
func NewManager(st Store, secret config.Secret) *Manager {
	return &Manager{store: st, hasher: NewSecretHasher(secret)}
}

// Hasher returns the hasher the manager stores secrets with, the one their checks must use.
func (m *Manager) Hasher() *SecretHasher { return m.hasher }

// Create checks req and stores the client it describes at the context's school, with a fresh
// client id and, for a confidential client, a fresh secret. The secret returned is the only
// copy: the stored client holds its keyed hash, so the caller shows it once and forgets it. A
// request that breaks a rule is refused with a *RequestError listing every problem.
func (m *Manager) Create(ctx context.Context, req Request) (storage.Client, string, error) {
	c, secret, err := m.build(req)
	if err != nil {
		return storage.Client{}, "", err
	}
	c, err = m.store.CreateClient(ctx, c)
	if err != nil {
		return storage.Client{}, "", err
	}
	return c, secret, nil
}

// build returns the client req describes and its secret, not yet stored.
func (m *Manager) build(req Request) (storage.Client, string, error) {
	req, err := CheckRequest(req)
	if err != nil {
		return storage.Client{}, "", err
	}
	id, err := NewID()
	if err != nil {
		return storage.Client{}, "", err
	}
	c := storage.Client{
		ID: id, Kind: req.Kind, Name: req.Name, TokenEndpointAuthMethod: storage.AuthMethodNone,
		ApplicationType: applicationType(req.RedirectURIs), RedirectURIs: req.RedirectURIs, Scopes: req.Scopes,
	}
	var secret string
	if req.Confidential {
		secret, c.SecretHash, err = m.hasher.NewSecret()
		if err != nil {
			return storage.Client{}, "", err
		}
		c.TokenEndpointAuthMethod = storage.AuthMethodSecretPost
	}
	return c, secret, nil
}

// RotateSecret gives the confidential client id a fresh secret and returns it. The old secret
// stops working when the update commits; tokens already issued stay valid (they were issued to
// the client, not to the secret). The check runs under the store's row lock, so a concurrent
// change of the client cannot slip between it and the write. kind limits which clients may be
// rotated ("" for any): storage.ErrNotFound (wrapped) for another kind, ErrPublic for a public
// client.
func (m *Manager) RotateSecret(ctx context.Context, id string, kind storage.ClientKind) (storage.Client, string, error) {
	secret, hash, err := m.hasher.NewSecret()
	if err != nil {
		return storage.Client{}, "", err
	}
	c, err := m.store.UpdateClient(ctx, id, func(c storage.Client) (storage.Client, error) {
		if kind != "" && c.Kind != kind {
			return c, fmt.Errorf("client: %q is not a %s client: %w", id, kind, storage.ErrNotFound)
		}
		if c.TokenEndpointAuthMethod != storage.AuthMethodSecretPost {
			return c, ErrPublic
		}
		c.SecretHash = hash
		return c, nil
	})
	if err != nil {
		return storage.Client{}, "", err
	}
	return c, secret, nil
}

// Delete deletes the client id of the context's school at `at`; the store revokes every token
// pair and authorization code it holds in the same transaction, so nothing it was given
// outlives it. storage.ErrNotFound (wrapped) when the school has no such client.
func (m *Manager) Delete(ctx context.Context, id string, at time.Time) error {
	return m.store.DeleteClient(ctx, id, at)
}
