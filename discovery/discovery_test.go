package discovery

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

func testSchool(t *testing.T, idTokens bool, cimd config.CIMD) *school.School {
	t.Helper()
	c := schools.File(1, "north", "Northwind", "https://north.example/")
	c.Features.IDTokens = idTokens
	c.CIMD = cimd
	return schools.School(t, c)
}

// golden compares v's JSON with testdata/name (go test ./discovery -update rewrites it).
func golden(t *testing.T, name string, v any) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	schools.GoldenJSON(t, filepath.Join("testdata", name), raw)
}

func TestDocuments(t *testing.T) {
	on := testSchool(t, true, config.CIMD{AllowedHosts: []string{"apps.example"}})
	off := testSchool(t, false, config.CIMD{})
	golden(t, "server-id-tokens.json", ServerMetadataFor(on))
	golden(t, "server-no-id-tokens.json", ServerMetadataFor(off))
	golden(t, "resource.json", ResourceMetadataFor(on, resource.Origin))
	golden(t, "resource-mcp.json", ResourceMetadataFor(on, resource.MCP))
	golden(t, "resource-member-graphql.json", ResourceMetadataFor(on, resource.MemberAPI))

	// The issuer is base_url byte for byte (without the trailing slash) and the protected
	// resource names it as its only authorization server: MCP clients compare the strings.
	md, prm := ServerMetadataFor(on), ResourceMetadataFor(on, resource.Origin)
	if md.Issuer != "https://north.example" || prm.AuthorizationServers[0] != md.Issuer || prm.Resource != md.Issuer {
		t.Errorf("issuer %q, authorization_servers %v, resource %q", md.Issuer, prm.AuthorizationServers, prm.Resource)
	}
	// Spec, Authentication 9: the ID-token fields only when enabled.
	if off.Features.IDTokens || ServerMetadataFor(off).JWKSURI != "" || ServerMetadataFor(off).IDTokenSigningAlgValuesSupported != nil {
		t.Error("a school without ID tokens advertises them")
	}
	if !md.ClientIDMetadataDocumentSupported || ServerMetadataFor(off).ClientIDMetadataDocumentSupported {
		t.Error("client_id_metadata_document_supported does not follow the CIMD policy")
	}
}

// TestPathResourceScopes: the metadata of /mcp and /member/graphql lists only what a member
// client (the clients that discover their way there) can get, the member scopes, the same scopes their 401
// challenges name. Listing every scope sent MCP clients, which ask for all of scopes_supported
// when a challenge names none, to ask a member client for operator scopes (invalid_scope).
func TestPathResourceScopes(t *testing.T) {
	on := testSchool(t, false, config.CIMD{})
	for _, p := range []resource.Protected{resource.MCP, resource.MemberAPI} {
		md := ResourceMetadataFor(on, p)
		if md.Resource != on.Origin+p.Path {
			t.Errorf("%s: resource %q", p.Path, md.Resource)
		}
		if !slices.Equal(md.ScopesSupported, []string{scope.AccountRead, scope.AccountWrite}) || !slices.Equal(md.ScopesSupported, p.Scopes) {
			t.Errorf("%s: scopes_supported %v, challenges name %v", p.Path, md.ScopesSupported, p.Scopes)
		}
	}
	if got := ResourceMetadataFor(on, resource.Origin).ScopesSupported; len(got) != len(scope.Names()) {
		t.Errorf("the origin's metadata lists %d scopes, want all %d", len(got), len(scope.Names()))
	}
}
