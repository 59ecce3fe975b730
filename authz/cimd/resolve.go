package cimd

import (
	"context"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctorhq/proctor/authz"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/storage"
)

// DefaultMaxEntries bounds the cache: a document is at most 5 KB, so the default holds at most
// about 5 MB of bodies.
const DefaultMaxEntries = 1024

// Options tune a Documents; the zero value is production's.
type Options struct {
	// RootCAs verifies document hosts; nil uses the system roots (SSL_CERT_FILE honoured).
	RootCAs *x509.CertPool
	// Resolver looks host names up; nil uses net.DefaultResolver.
	Resolver AddrResolver
	// ConnectTimeout bounds connecting and the TLS handshake; Timeout the whole fetch.
	ConnectTimeout time.Duration
	Timeout        time.Duration
	// MaxEntries bounds the cache (least recently used evicted first).
	MaxEntries int
	// Limits bound the fetches; zero fields take DefaultFetchLimits'.
	Limits FetchLimits
	Now    func() time.Time
	Logger *slog.Logger
	// Fetched, when set, is told the outcome of every document lookup that missed the cache or
	// was refused before a fetch (FetchCached ... FetchLimited), for the server's metrics.
	Fetched func(result FetchResult)
	// Tracer, when set, gives each lookup that reaches the cache or the network a span with the
	// document's host and the lookup's result; nil traces nothing.
	Tracer trace.Tracer

	// dial replaces the connect of a checked address (tests observe what is dialled).
	dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// FetchResult is the outcome of one document lookup, as Options.Fetched is told it.
type FetchResult string

const (
	// FetchOK: fetched, valid, and cached.
	FetchOK FetchResult = "ok"
	// FetchCached: served from the cache, fresh for the school; no request was sent.
	FetchCached FetchResult = "cached"
	// FetchFailed: the fetch failed (address, connection, redirect, status, type or size).
	FetchFailed FetchResult = "failed"
	// FetchInvalid: fetched, but the document is not a valid one for its URL.
	FetchInvalid FetchResult = "invalid"
	// FetchLimited: refused by the fetch limits before any request was sent.
	FetchLimited FetchResult = "limited"
)

// Documents resolves Client ID Metadata Documents for every school of the process. It is safe
// for concurrent use; concurrent resolves of one URL share one fetch.
type Documents struct {
	reviewed map[string]bool
	fetcher  *fetcher
	cache    *cache
	now      func() time.Time
	log      *slog.Logger
	fetched  func(FetchResult)
	tracer   trace.Tracer

	// mu guards flights and gate.
	mu      sync.Mutex
	flights map[flightKey]*flight
	gate    *fetchGate
}

var _ authz.MetadataDocuments = (*Documents)(nil)

// flightKey separates fetches by address policy, so a school without the development policy
// never receives a document fetched under it.
type flightKey struct {
	url          string
	allowPrivate bool
}

type flight struct {
	done chan struct{}
	doc  Document
	err  error
	// callers counts the resolves waiting on this fetch (guarded by Documents.mu): what a test
	// waits for before letting the fetch finish, instead of sleeping.
	callers int
}

// New returns a resolver. reviewed are the document URLs the deployment's operators have
// reviewed (config.Server.ReviewedClients), compared by simple string comparison as the
// draft's section 3 requires of client_id URLs.
func New(reviewed []string, o Options) *Documents {
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	o.ConnectTimeout = positiveOr(o.ConnectTimeout, DefaultConnectTimeout)
	o.Timeout = positiveOr(o.Timeout, DefaultTimeout)
	o.MaxEntries = positiveOr(o.MaxEntries, DefaultMaxEntries)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Fetched == nil {
		o.Fetched = func(FetchResult) {}
	}
	r := make(map[string]bool, len(reviewed))
	for _, u := range reviewed {
		r[u] = true
	}
	return &Documents{
		reviewed: r, fetcher: newFetcher(o), cache: newCache(o.MaxEntries), now: o.Now, log: o.Logger,
		fetched: o.Fetched, tracer: o.Tracer, flights: make(map[flightKey]*flight), gate: newFetchGate(o.Limits),
	}
}

// positiveOr is v, or def when v is zero or negative (an option left unset).
func positiveOr[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Resolve implements authz.MetadataDocuments: the client the document at clientID describes,
// if school t accepts it. A host the school does not permit is storage.ErrNotFound (the
// client is simply unknown there); every other failure is an *authz.ClientError.
func (d *Documents) Resolve(ctx context.Context, t *school.School, clientID string) (storage.Client, error) {
	u, err := ParseClientID(clientID)
	if err != nil {
		return storage.Client{}, d.refuse(ctx, clientID, err)
	}
	if !t.CIMD.HostAllowed(u.Hostname()) {
		return storage.Client{}, fmt.Errorf("cimd: host %q is not permitted at school %d: %w", u.Hostname(), t.SchoolID, storage.ErrNotFound)
	}
	host := strings.ToLower(u.Hostname())
	if d.tracer != nil {
		var span trace.Span
		ctx, span = d.tracer.Start(ctx, "client metadata document", trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("server.address", host)))
		defer span.End()
	}
	doc, err := d.document(ctx, clientID, host, t)
	if err != nil {
		return storage.Client{}, d.refuse(ctx, clientID, err)
	}
	return storage.Client{
		ID: doc.ClientID, Kind: storage.ClientOperator, Name: doc.ClientName,
		TokenEndpointAuthMethod: storage.AuthMethodNone, ApplicationType: doc.ApplicationType,
		RedirectURIs: slices.Clone(doc.RedirectURIs), Scopes: d.Scopes(doc),
	}, nil
}

// refuse logs why a document cannot be used and words it for the member.
func (d *Documents) refuse(ctx context.Context, clientID string, err error) error {
	d.log.LogAttrs(ctx, slog.LevelWarn, "client metadata document refused",
		slog.String("client_id", clientID), slog.String("error", err.Error()))
	return &authz.ClientError{Description: describe(err), Err: err}
}

// Scopes are what a document's client may be granted (spec, Registration rule 4): identity
// scopes and, while the URL is unreviewed, operator read scopes only; once reviewed, every
// operator scope. Member scopes (account:*) never: a document client is an operator client
// (spec, Authentication 11). The document's own scope field narrows the result.
func (d *Documents) Scopes(doc Document) []string {
	reviewed := d.reviewed[doc.ClientID]
	var out []string
	for _, sc := range scope.All() {
		switch {
		case sc.Audience == scope.Identity:
		case sc.Audience == scope.Operator && (reviewed || strings.HasSuffix(sc.Name, ":read")):
		default:
			continue
		}
		if doc.Scope != nil && !slices.Contains(doc.Scope, sc.Name) {
			continue
		}
		out = append(out, sc.Name)
	}
	return out
}

// document returns the valid document at url, from the cache when it is fresh for the school's
// bounds, otherwise fetched (once for all concurrent callers with the same address policy) if
// the fetch limits let school t fetch from host now.
func (d *Documents) document(ctx context.Context, url, host string, t *school.School) (Document, error) {
	p := t.CIMD
	if doc, ok := d.cache.get(url, d.now(), p.CacheMin, p.CacheMax, p.AllowPrivateNetworks); ok {
		d.outcome(ctx, FetchCached)
		return doc, nil
	}
	key := flightKey{url: url, allowPrivate: p.AllowPrivateNetworks}
	d.mu.Lock()
	f, ok := d.flights[key]
	if !ok {
		if err := d.gate.admit(key, t.SchoolID, host, d.now()); err != nil {
			d.mu.Unlock()
			d.outcome(ctx, FetchLimited)
			return Document{}, err
		}
		f = &flight{done: make(chan struct{})}
		d.flights[key] = f
		// The fetch outlives any one caller's cancellation, since others may be waiting on it;
		// the client's timeout bounds it.
		go func() {
			f.doc, f.err = d.load(context.WithoutCancel(ctx), url, p.AllowPrivateNetworks)
			d.mu.Lock()
			delete(d.flights, key)
			d.gate.done(key, f.err, d.now())
			d.mu.Unlock()
			close(f.done)
		}()
	}
	f.callers++
	d.mu.Unlock()
	select {
	case <-f.done:
		return f.doc, f.err
	case <-ctx.Done():
		return Document{}, fmt.Errorf("%w: %w", ErrFetch, ctx.Err())
	}
}

// load fetches and validates the document and caches it only if it is valid (draft section
// 5.2).
func (d *Documents) load(ctx context.Context, url string, allowPrivate bool) (Document, error) {
	resp, err := d.fetcher.fetch(ctx, url, allowPrivate)
	if err != nil {
		d.outcome(ctx, FetchFailed)
		return Document{}, err
	}
	doc, err := ParseDocument(url, resp.body)
	if err != nil {
		d.outcome(ctx, FetchInvalid)
		return Document{}, err
	}
	d.outcome(ctx, FetchOK)
	now := d.now()
	lifetime, known := freshness(resp.header, now)
	d.cache.put(url, entry{doc: doc, fetched: now, lifetime: lifetime, known: known, private: allowPrivate})
	return doc, nil
}

// outcome tells Options.Fetched a lookup's result and records it on the lookup's span.
func (d *Documents) outcome(ctx context.Context, r FetchResult) {
	d.fetched(r)
	if d.tracer != nil {
		trace.SpanFromContext(ctx).SetAttributes(attribute.String("proctor.cimd.result", string(r)))
	}
}
