package gormstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

func (r oauthClientRow) client() (storage.Client, error) {
	c := storage.Client{
		ID:                      r.ID,
		Kind:                    storage.ClientKind(r.Kind),
		Name:                    r.Name,
		TokenEndpointAuthMethod: r.TokenEndpointAuthMethod,
		ApplicationType:         r.ApplicationType,
		CreatedAt:               utc(r.CreatedAt),
		UpdatedAt:               utc(r.UpdatedAt),
	}
	if r.SecretHash != nil {
		c.SecretHash = *r.SecretHash
	}
	if err := json.Unmarshal([]byte(r.RedirectURIs), &c.RedirectURIs); err != nil {
		return storage.Client{}, fmt.Errorf("gormstore: client %q: redirect_uris: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(r.Scopes), &c.Scopes); err != nil {
		return storage.Client{}, fmt.Errorf("gormstore: client %q: scopes: %w", r.ID, err)
	}
	return c, nil
}

// clientRow checks c and builds its row for the school. Empty method and application type take
// the defaults of a client registered without them: public ("none") and "web".
func clientRow(sc scope, c storage.Client) (oauthClientRow, error) {
	invalid := func(format string, args ...any) error {
		return fmt.Errorf("gormstore: client %q: %s: %w", c.ID, fmt.Sprintf(format, args...), storage.ErrInvalidArgument)
	}
	if c.ID == "" {
		return oauthClientRow{}, invalid("empty id")
	}
	if c.Kind != storage.ClientMember && c.Kind != storage.ClientOperator {
		return oauthClientRow{}, invalid("unknown kind %q", c.Kind)
	}
	method := c.TokenEndpointAuthMethod
	if method == "" {
		method = storage.AuthMethodNone
	}
	switch {
	case method != storage.AuthMethodNone && method != storage.AuthMethodSecretPost:
		return oauthClientRow{}, invalid("unknown token endpoint auth method %q", method)
	case method == storage.AuthMethodNone && c.SecretHash != "":
		return oauthClientRow{}, invalid("a public client has no secret")
	case method == storage.AuthMethodSecretPost && c.SecretHash == "":
		return oauthClientRow{}, invalid("a confidential client needs a secret hash")
	}
	appType := c.ApplicationType
	if appType == "" {
		appType = "web"
	}
	if appType != "web" && appType != "native" {
		return oauthClientRow{}, invalid("unknown application type %q", appType)
	}
	uris, err := jsonList(c.RedirectURIs)
	if err != nil {
		return oauthClientRow{}, invalid("redirect uris: %v", err)
	}
	scopes, err := jsonList(c.Scopes)
	if err != nil {
		return oauthClientRow{}, invalid("scopes: %v", err)
	}
	row := oauthClientRow{
		ID:                      c.ID,
		SchoolID:                sc.schoolID,
		Kind:                    string(c.Kind),
		Name:                    c.Name,
		TokenEndpointAuthMethod: method,
		ApplicationType:         appType,
		RedirectURIs:            uris,
		Scopes:                  scopes,
	}
	if c.SecretHash != "" {
		row.SecretHash = &c.SecretHash
	}
	return row, nil
}

// jsonList encodes a list as a JSON array, nil as [] (the column's default), so that every row
// reads back as a list.
func jsonList(vs []string) (string, error) {
	if vs == nil {
		vs = []string{}
	}
	b, err := json.Marshal(vs)
	return string(b), err
}

// CreateClient stores a new client at the context's school.
func (s *Store) CreateClient(ctx context.Context, c storage.Client) (storage.Client, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.Client{}, err
	}
	row, err := clientRow(sc, c)
	if err != nil {
		return storage.Client{}, err
	}
	now := dbTime(s.now())
	row.CreatedAt, row.UpdatedAt = now, now
	// Client ids are the table's primary key across schools, so an id taken at another school is
	// ErrAlreadyExists too: a client id must name one client wherever it is presented.
	if err := s.conn(ctx).Create(&row).Error; err != nil {
		return storage.Client{}, wrap(fmt.Sprintf("create client %q", c.ID), err)
	}
	return row.client()
}

// GetClient returns one of the context school's clients. Every authorization and token request
// reads its client, so, like GetTokenPair, this is a fixed statement scanned straight into the
// row, without gorm's query building and reflection.
func (s *Store) GetClient(ctx context.Context, id string) (storage.Client, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.Client{}, err
	}
	row := oauthClientRow{ID: id, SchoolID: sc.schoolID}
	err = s.conn(ctx).Raw(`SELECT kind, name, secret_hash, token_endpoint_auth_method, application_type, redirect_uris, scopes, created_at, updated_at
FROM oauth_clients WHERE school_id = ? AND id = ?`, sc.schoolID, id).
		Row().Scan(&row.Kind, &row.Name, &row.SecretHash, &row.TokenEndpointAuthMethod, &row.ApplicationType, &row.RedirectURIs,
		&row.Scopes, &row.CreatedAt, &row.UpdatedAt)
	if err != nil {
		return storage.Client{}, wrap(fmt.Sprintf("get client %q", id), err)
	}
	return row.client()
}

// ListClients lists the school's clients of a kind ("" for all), oldest first. Client ids are
// chosen by their registrants, so the keyset is (created_at, id) rather than the id alone.
func (s *Store) ListClients(ctx context.Context, kind storage.ClientKind, page storage.Page) ([]storage.Client, string, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, "", err
	}
	after, ok, err := decodeTimeCursor(page.After)
	if err != nil {
		return nil, "", err
	}
	limit := pageSize(page)
	q := sc.in(s.conn(ctx))
	if kind != "" {
		q = q.Where("kind = ?", string(kind))
	}
	var rows []oauthClientRow
	if err := timeKeyPage(q, "created_at", "id", false, after, ok, limit).Find(&rows).Error; err != nil {
		return nil, "", wrap("list clients", err)
	}
	rows, next := nextPage(rows, limit, func(r oauthClientRow) string {
		return encodeTimeCursor(timeCursor{at: r.CreatedAt, id: r.ID})
	})
	out := make([]storage.Client, len(rows))
	for i, r := range rows {
		if out[i], err = r.client(); err != nil {
			return nil, "", err
		}
	}
	return out, next, nil
}

// UpdateClient applies fn to the client while its row is locked. fn must not call the store (see
// UpdateMember).
func (s *Store) UpdateClient(ctx context.Context, id string, fn func(storage.Client) (storage.Client, error)) (storage.Client, error) {
	op := fmt.Sprintf("update client %q", id)
	return updateByID(s, ctx, op, id, oauthClientRow.client, fn, func(tx *gorm.DB, sc scope, row oauthClientRow, c storage.Client) (storage.Client, error) {
		if c.ID != id {
			return storage.Client{}, fmt.Errorf("gormstore: %s: the id cannot change (to %q): %w", op, c.ID, storage.ErrInvalidArgument)
		}
		next, err := clientRow(sc, c)
		if err != nil {
			return storage.Client{}, err
		}
		next.CreatedAt = row.CreatedAt
		next.UpdatedAt = dbTime(s.now())
		// Select("*") writes every column, so that a field fn cleared (a secret hash) is
		// cleared in the row too.
		if err := sc.in(tx.Select("*").Omit("id", "school_id", "created_at")).Where("id = ?", id).Updates(&next).Error; err != nil {
			return storage.Client{}, wrap(op, err)
		}
		return next.client()
	})
}

// DeleteClient deletes the client and, in the same transaction, revokes every live pair and
// deactivates every code it holds at the school, so that nothing it was issued outlives it.
func (s *Store) DeleteClient(ctx context.Context, id string, at time.Time) error {
	sc, err := s.scoped(ctx)
	if err != nil {
		return err
	}
	op := fmt.Sprintf("delete client %q", id)
	at = dbTime(at)
	return s.inTx(ctx, op, func(tx *gorm.DB) error {
		if err := rowsOrNotFound(op, sc.in(tx).Where("id = ?", id).Delete(&oauthClientRow{})); err != nil {
			return err
		}
		// The same order as RevokeGrant, for the same reasons: the client's pairs are locked
		// in id order first (the order every locker of pairs uses, so no deadlock), then its
		// codes are deactivated (waiting for a code exchange in flight to commit its pair), and
		// only then are the pairs revoked, by a statement that sees that pair too.
		var ids []int64
		err := sc.in(forUpdate(tx.Model(&tokenPairRow{}))).
			Where("client_id = ?", id).Order("id").Pluck("id", &ids).Error
		if err != nil {
			return wrap(op+": lock pairs", err)
		}
		_, err = revokeIssued(tx, op, sc.in, "client_id = ?", id, at)
		return err
	})
}
