package authz

import (
	"context"
	"fmt"
	"strings"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/storage"
)

// MetadataDocuments resolves a client_id that is an https URL to the client its Client ID
// Metadata Document describes (package authz/cimd). It returns storage.ErrNotFound (wrapped)
// when the school does not accept the document, and a *ClientError when it cannot be used.
type MetadataDocuments interface {
	Resolve(ctx context.Context, t *school.School, clientID string) (storage.Client, error)
}

// ClientError says why a client cannot be used, in words fit for the member's error page (the
// redirect URI of such a client cannot be trusted, so nothing is redirected).
type ClientError struct {
	Description string
	Err         error
}

func (e *ClientError) Error() string { return fmt.Sprintf("%s: %v", e.Description, e.Err) }
func (e *ClientError) Unwrap() error { return e.Err }

// clientSource finds a client by id at the context's school. Three kinds exist:
//   - an https URL: a Client ID Metadata Document, fetched and cached (operator audience);
//   - a vendor integration's id from the server file, when the school enables it (operator
//     audience; nothing is stored per registration, docs/decisions.md);
//   - anything else: a client stored for the school (member clients, created by operators).
type clientSource struct {
	store        clientReader
	integrations []config.Integration
	documents    MetadataDocuments
}

// IsMetadataDocumentURL reports whether a client_id names a Client ID Metadata Document.
func IsMetadataDocumentURL(id string) bool {
	return len(id) > len("https://") && strings.EqualFold(id[:len("https://")], "https://")
}

type clientKey struct {
	school int64
	id     string
}

// resolve finds the client, through the request's memo when it has one. Failures are not
// remembered: a retry within the request asks again.
func (c *clientSource) resolve(ctx context.Context, t *school.School, id string) (storage.Client, error) {
	memo := memoFrom(ctx)
	if memo == nil {
		return c.lookup(ctx, t, id)
	}
	return remember(memo, memo.clients, clientKey{school: t.SchoolID, id: id}, func() (storage.Client, error) {
		return c.lookup(ctx, t, id)
	})
}

func (c *clientSource) lookup(ctx context.Context, t *school.School, id string) (storage.Client, error) {
	if IsMetadataDocumentURL(id) {
		if c.documents == nil || !t.CIMD.Enabled() {
			return storage.Client{}, fmt.Errorf("client %q: %w", id, storage.ErrNotFound)
		}
		return c.documents.Resolve(ctx, t, id)
	}
	if in, ok := enabledIntegration(t, c.integrations, func(in config.Integration) bool { return in.ClientID == id }); ok {
		return integrationClient(in), nil
	}
	return c.store.GetClient(ctx, id)
}

// enabledIntegration finds an integration the school accepts.
func enabledIntegration(t *school.School, all []config.Integration, match func(config.Integration) bool) (config.Integration, bool) {
	for _, in := range all {
		if !match(in) {
			continue
		}
		if len(t.Registration.Integrations) == 0 {
			return in, true
		}
		for _, name := range t.Registration.Integrations {
			if in.Named(name) {
				return in, true
			}
		}
	}
	return config.Integration{}, false
}

// integrationClient is a vendor platform as a public operator client. Member scopes are never
// part of it, whatever the configuration says (spec, Authentication 11).
func integrationClient(in config.Integration) storage.Client {
	appType := in.ApplicationType
	if appType == "" {
		appType = "web"
	}
	return storage.Client{
		ID: in.ClientID, Kind: storage.ClientOperator, Name: in.Name, ApplicationType: appType,
		TokenEndpointAuthMethod: storage.AuthMethodNone, RedirectURIs: in.RedirectURIs,
		Scopes: operatorScopes(in.Scopes),
	}
}

// operatorScopes keeps the identity and operator scopes of a list.
func operatorScopes(list []string) []string {
	var out []string
	for _, s := range list {
		if sc, ok := scope.Lookup(s); ok && sc.Audience != scope.Member {
			out = append(out, s)
		}
	}
	return out
}
