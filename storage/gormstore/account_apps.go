package gormstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/account/accountstore"
)

// connectedLive is the condition under which a pair still grants something at a time (one
// parameter): unrevoked, and its refresh token (or, without one, its access token) unexpired.
const connectedLive = "p.revoked_at IS NULL AND COALESCE(p.refresh_expires_at, p.access_expires_at) > ?"

// connectedPair is one live pair as ListConnectedApps reads it.
type connectedPair struct {
	ClientID    string
	ClientName  string
	Scopes      string
	RequestedAt time.Time
}

// ListConnectedApps groups the member's live pairs at the context's school by client. The
// client's name comes from its stored row; a client without one (a Client ID Metadata Document
// client, whose document is only ever cached in memory) is named by its id, which is the
// document's URL.
func (s *Store) ListConnectedApps(ctx context.Context, memberID int64, at time.Time) ([]accountstore.ConnectedApp, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, err
	}
	at = dbTime(at)
	var pairs []connectedPair
	err = s.conn(ctx).Raw(`SELECT p.client_id, COALESCE(c.name, '') AS client_name, p.scopes, p.requested_at
FROM oauth_token_pairs p LEFT JOIN oauth_clients c ON c.id = p.client_id AND c.school_id = p.school_id
WHERE p.school_id = ? AND p.member_id = ? AND `+connectedLive, sc.schoolID, memberID, at).
		Scan(&pairs).Error
	if err != nil {
		return nil, wrap("list connected apps", err)
	}
	byClient := map[string]*accountstore.ConnectedApp{}
	scopes := map[string]map[string]bool{}
	for _, p := range pairs {
		requested := utc(p.RequestedAt)
		app := byClient[p.ClientID]
		if app == nil {
			name := p.ClientName
			if name == "" {
				name = p.ClientID
			}
			app = &accountstore.ConnectedApp{ClientID: p.ClientID, ClientName: name, GrantedAt: requested, LastUsedAt: requested}
			byClient[p.ClientID] = app
			scopes[p.ClientID] = map[string]bool{}
		}
		// Pairs of one authorization share its request; the earliest live pair is the oldest
		// approval still in force, the latest the last token issued.
		if requested.Before(app.GrantedAt) {
			app.GrantedAt = requested
		}
		if requested.After(app.LastUsedAt) {
			app.LastUsedAt = requested
		}
		for _, sc := range strings.Fields(p.Scopes) {
			scopes[p.ClientID][sc] = true
		}
	}
	out := make([]accountstore.ConnectedApp, 0, len(byClient))
	for id, app := range byClient {
		app.Scopes = make([]string, 0, len(scopes[id]))
		for sc := range scopes[id] {
			app.Scopes = append(app.Scopes, sc)
		}
		slices.Sort(app.Scopes)
		out = append(out, *app)
	}
	slices.SortFunc(out, func(a, b accountstore.ConnectedApp) int {
		return cmp.Or(
			cmp.Compare(strings.ToLower(a.ClientName), strings.ToLower(b.ClientName)),
			cmp.Compare(a.ClientName, b.ClientName),
			cmp.Compare(a.ClientID, b.ClientID))
	})
	return out, nil
}

// RevokeConnectedApp revokes every pair of the client for the member at the context's school.
func (s *Store) RevokeConnectedApp(ctx context.Context, memberID int64, clientID string, at time.Time) (int, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return 0, err
	}
	return s.revokeMemberPairs(ctx, fmt.Sprintf("revoke connected app %q", clientID), memberID, func(q *gorm.DB) *gorm.DB {
		return sc.in(q).Where("client_id = ?", clientID)
	}, at)
}

// RevokeAllConnectedApps revokes every pair of the member at every school. It is
// deployment-wide, so it needs no school.
func (s *Store) RevokeAllConnectedApps(ctx context.Context, memberID int64, at time.Time) (int, error) {
	return s.revokeMemberPairs(ctx, "revoke all connected apps", memberID, func(q *gorm.DB) *gorm.DB { return q }, at)
}

// revokeMemberPairs revokes the member's unrevoked pairs that which selects, and deactivates
// the member's active codes it selects, and returns how many pairs it revoked. The revocation
// itself is one UPDATE; it runs in a transaction, after the same locking as DeleteClient and
// for the same reasons: the pairs are locked in id order (the order of every locker of pairs,
// so no deadlock with a refresh or a first use), then the codes are deactivated (waiting for a
// code exchange in flight to commit its pair), and only then are the pairs revoked, by a
// statement that also sees a pair a refresh or an exchange committed meanwhile.
func (s *Store) revokeMemberPairs(ctx context.Context, op string, memberID int64, which func(*gorm.DB) *gorm.DB, at time.Time) (int, error) {
	at = dbTime(at)
	var revoked int
	err := s.inTx(ctx, op, func(tx *gorm.DB) error {
		var ids []int64
		err := which(forUpdate(tx.Model(&tokenPairRow{}))).
			Where("member_id = ? AND revoked_at IS NULL", memberID).Order("id").Pluck("id", &ids).Error
		if err != nil {
			return wrap(op+": lock pairs", err)
		}
		revoked, err = revokeIssued(tx, op, which, "member_id = ?", memberID, at)
		return err
	})
	return revoked, err
}
