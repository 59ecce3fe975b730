package authz

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"

	"github.com/ory/fosite"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/storage"
)

// The token endpoint's unit of work.
//
// fosite asks its storage one question at a time. A code exchange reads the code (twice), its
// PKCE record and its OpenID Connect record, each naming the client, and writes the code's use,
// the pair's access half and its refresh half in three calls; a refresh reads its pair, then
// locks the grant, reads the pair again and writes both halves. One statement per call made an
// exchange 9 statements and a refresh 7, and the statement count, not the work in each, bound
// the endpoint's throughput (docs/benchmarks.md). So:
//
//   - reads are answered from what the request has read already (requestMemo): the client once,
//     and the code with both its records in one query (storage.Grants.GetCodeGrant);
//   - writes wait in the transaction fosite opens (pendingWrite) and go to the store as one call
//     when fosite commits: ExchangeCode spends the code, deletes its records and stores the
//     pair; RefreshPair locks the replaced pair, checks it and stores the new one. That call is
//     atomic on its own, so no database transaction is begun for it (fositeStore.BeginTX).
//
// On PostgreSQL each of those calls is one statement, so an exchange or a refresh is three.
//
// The authorization endpoint likewise: fosite stores a code, its PKCE record and its OpenID
// Connect record in three calls; they wait in the request's memo (pendingCode) and are stored
// together, in one call, once fosite has answered (storeCodes).

// requestMemo holds what one request has read, for the request only: nothing is kept across
// requests, so a client changed or a code spent by another request is seen by the next one.
type requestMemo struct {
	mu      sync.Mutex
	clients map[clientKey]storage.Client
	codes   map[string]storage.CodeGrant // by the code's signature, at the request's school
	// pkceUsed are the codes whose PKCE record fosite deleted. fosite deletes it as soon as it
	// has read it, before it checks the verifier, so that a code's verifier can be tried only
	// once; the deletion goes with the exchange (ExchangeCode deletes the record), or, if the
	// request fails before that, when the request ends (settle).
	pkceUsed []string
	// exchanged are the codes whose exchange was stored.
	exchanged []string
	// issued are the codes fosite issued in this request, with their records, by signature,
	// until storeCodes stores them.
	issued map[string]*storage.CodeGrant
	// decoded is the code request last decoded, with the session it filled (codeRequest).
	decoded struct {
		signature string
		session   *Session
		request   fosite.Requester
	}
}

type requestMemoKey struct{}

func memoFrom(ctx context.Context) *requestMemo {
	m, _ := ctx.Value(requestMemoKey{}).(*requestMemo)
	return m
}

// remember returns m's value for key, or fetches it and keeps it. Failures are not kept: a retry
// within the request asks again.
func remember[K comparable, V any](memo *requestMemo, m map[K]V, key K, fetch func() (V, error)) (V, error) {
	memo.mu.Lock()
	v, ok := m[key]
	memo.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := fetch()
	if err != nil {
		return v, err
	}
	memo.mu.Lock()
	m[key] = v
	memo.mu.Unlock()
	return v, nil
}

// perRequest gives each request through h a requestMemo of its own, and settles what the
// request left when it ends.
func (s *fositeStore) perRequest(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		memo := &requestMemo{clients: make(map[clientKey]storage.Client, 1), codes: make(map[string]storage.CodeGrant, 1)}
		ctx := context.WithValue(r.Context(), requestMemoKey{}, memo)
		h(w, r.WithContext(ctx))
		s.settle(ctx, memo)
	})
}

// settle deletes the PKCE records fosite deleted in a request that stored no exchange of their
// code. A failure is logged, not answered: the answer has been written, and the record expires
// with its code.
func (s *fositeStore) settle(ctx context.Context, memo *requestMemo) {
	for _, sig := range memo.pkceUsed {
		if slices.Contains(memo.exchanged, sig) {
			continue
		}
		if err := s.deleteGrantSession(ctx, storage.SessionPKCE, sig); err != nil {
			s.log.LogAttrs(ctx, slog.LevelWarn, "PKCE record not deleted",
				slog.String("request_id", edge.FromContext(ctx).ID), slog.String("error", err.Error()))
		}
	}
}

// codeGrant reads a code with its records, once a request.
func (s *fositeStore) codeGrant(ctx context.Context, signature string) (storage.CodeGrant, error) {
	memo := memoFrom(ctx)
	if memo == nil {
		return s.grants.GetCodeGrant(ctx, signature)
	}
	return remember(memo, memo.codes, signature, func() (storage.CodeGrant, error) {
		return s.grants.GetCodeGrant(ctx, signature)
	})
}

// errNoMemo is a code issued outside the endpoints, which all run through perRequest.
var errNoMemo = errors.New("authz: a code issued outside a request's memo")

// pendingCode finds the code the request issued with this signature (a new one if none) and
// lets set fill in its part.
func (s *fositeStore) pendingCode(ctx context.Context, signature string, set func(*storage.CodeGrant)) error {
	memo := memoFrom(ctx)
	if memo == nil {
		return errNoMemo
	}
	memo.mu.Lock()
	defer memo.mu.Unlock()
	if memo.issued == nil {
		memo.issued = map[string]*storage.CodeGrant{}
	}
	g := memo.issued[signature]
	if g == nil {
		g = &storage.CodeGrant{}
		memo.issued[signature] = g
	}
	set(g)
	return nil
}

// storeCodes stores the codes the request issued, each with its records in one call, and ev
// (the consent's security event, if not nil) with the first. The authorization endpoint calls
// it after fosite has answered and before the redirect is sent: a code fosite issued and then
// refused to hand out is never stored.
func (s *fositeStore) storeCodes(ctx context.Context, ev *audit.Event) error {
	memo := memoFrom(ctx)
	if memo == nil {
		return errNoMemo
	}
	memo.mu.Lock()
	issued := memo.issued
	memo.issued = nil
	memo.mu.Unlock()
	for _, g := range issued {
		if g.Code.Signature == "" {
			return errors.New("authz: a PKCE or OpenID Connect record without its code")
		}
		g.Event, ev = ev, nil
		if err := s.grants.CreateCodeGrant(ctx, *g); err != nil {
			return err
		}
	}
	if ev != nil {
		return errors.New("authz: a security event without a code to store it with")
	}
	return nil
}

// codeRequest decodes a code's stored request into session, once a request: fosite reads the
// code twice in an exchange, both times into the access request's session, and does not change
// what the first read returned before the second, so the second gets the same requester.
func (s *fositeStore) codeRequest(ctx context.Context, signature string, data []byte, session fosite.Session) (fosite.Requester, error) {
	memo, sess := memoFrom(ctx), (*Session)(nil)
	if p, ok := session.(*Session); ok {
		sess = p
	}
	if memo == nil || sess == nil {
		return s.unmarshalRequest(ctx, data, session)
	}
	memo.mu.Lock()
	d := memo.decoded
	memo.mu.Unlock()
	if d.request != nil && d.session == sess && subtle.ConstantTimeCompare([]byte(d.signature), []byte(signature)) == 1 {
		return d.request, nil
	}
	r, err := s.unmarshalRequest(ctx, data, session)
	if err != nil {
		return nil, err
	}
	memo.mu.Lock()
	memo.decoded.signature, memo.decoded.session, memo.decoded.request = signature, sess, r
	memo.mu.Unlock()
	return r, nil
}

// pendingWrite is what a transaction fosite opened is to store when fosite commits it.
type pendingWrite struct {
	// spend is the code whose use fosite recorded (InvalidateAuthorizeCodeSession); "" in a
	// refresh.
	spend string
	// pair is the pair fosite stored (CreateAccessTokenSession, then CreateRefreshTokenSession
	// for its refresh half); nil until then.
	pair *storage.TokenPair
	// tx is the context of the store's transaction, begun for the first direct write in
	// fosite's transaction (fositeStore.within); nil while there was none.
	tx context.Context
}

type pendingWriteKey struct{}

// errNoTransaction is a write fosite makes outside the transaction it opens for every write of
// the token endpoint: a change in fosite, which must not be answered by writing piecemeal.
var errNoTransaction = errors.New("authz: a token write outside a transaction")

func pendingFrom(ctx context.Context) (*pendingWrite, error) {
	w, _ := ctx.Value(pendingWriteKey{}).(*pendingWrite)
	if w == nil {
		return nil, errNoTransaction
	}
	return w, nil
}

// flush stores the transaction's pending write: a code exchange's pair with the code's use, or a
// refresh's pair in place of the pair it replaces. Refusals come back as the fosite errors the
// token endpoint answers invalid_grant to.
func (s *fositeStore) flush(ctx context.Context, w *pendingWrite) error {
	switch {
	case w.pair == nil && w.spend == "":
		return nil // nothing pending: the revocation of a reused refresh token writes directly
	case w.pair == nil:
		return fmt.Errorf("authz: a code's use without a pair: %w", errNoTransaction)
	case w.spend != "":
		_, err := s.grants.ExchangeCode(ctx, w.spend, *w.pair)
		if errors.Is(err, storage.ErrNotFound) {
			// Spent by a concurrent exchange since fosite read it.
			return fmt.Errorf("%w: %w", fosite.ErrInvalidatedAuthorizeCode, err)
		}
		if err == nil {
			if memo := memoFrom(ctx); memo != nil {
				memo.mu.Lock()
				memo.exchanged = append(memo.exchanged, w.spend)
				memo.mu.Unlock()
			}
		}
		return err
	case w.pair.ReplacesPairID != 0:
		_, err := s.grants.RefreshPair(ctx, *w.pair)
		if errors.Is(err, storage.ErrNotFound) {
			// Revoked since fosite read it: the refresh issues nothing.
			return fmt.Errorf("%w: %w", fosite.ErrInactiveToken, err)
		}
		return err
	default:
		return fmt.Errorf("authz: a pair that neither spends a code nor replaces a pair: %w", errNoTransaction)
	}
}
