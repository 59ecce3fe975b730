package discovery

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/seed"
	"github.com/proctorhq/proctor/seed/demo"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// demoStore loads both demo schools, at demo.Reference so that the golden files do not move
// with the calendar, and returns the store with the schools' schools (ID tokens on for the
// first, off for the second, as `proctor demo` runs them).
func demoStore(t *testing.T) (storage.Store, []*school.School) {
	t.Helper()
	st := storetest.Open(t, "sqlite")
	opts := seed.Options{Params: schools.Cheap}
	var list []*school.School
	for i, s := range demo.Schools("127.0.0.1:8080") {
		c := schools.File(s.SchoolID, s.Subdomain, s.Name, s.BaseURL)
		c.Features = config.Features{MCPConnections: true, IDTokens: i == 0}
		tn := schools.School(t, c)
		if err := st.SyncSchool(t.Context(), s.SchoolID, s.Subdomain, s.Name); err != nil {
			t.Fatal(err)
		}
		fx, err := s.Load(demo.Reference)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fx.Apply(school.NewContext(t.Context(), tn), st, opts); err != nil {
			t.Fatalf("%s: %v", s.FileName, err)
		}
		list = append(list, tn)
	}
	return st, list
}

// serve mounts the handler behind a stand-in for the school middleware.
func serve(t *testing.T, h *Handler, tn *school.School) *httptest.Server {
	t.Helper()
	r := mux.NewRouter()
	h.Mount(r)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.ServeHTTP(w, req.WithContext(school.NewContext(req.Context(), tn)))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestTextDocumentsGolden(t *testing.T) {
	st, list := demoStore(t)
	for _, tn := range list {
		ctx := school.NewContext(t.Context(), tn)
		for _, doc := range textDocs {
			got, err := Render(ctx, st, tn, doc.path, demo.Reference)
			if err != nil {
				t.Fatalf("%s %s: %v", tn.Subdomain, doc.path, err)
			}
			schools.Golden(t, filepath.Join("testdata", tn.Subdomain+"-"+strings.TrimPrefix(doc.path, "/")), got)
		}
	}
}

func TestTextDocumentsHTTP(t *testing.T) {
	st, schools := demoStore(t)
	tn := schools[0]
	h := New(Deps{Catalog: st, Now: func() time.Time { return demo.Reference }})
	srv := serve(t, h, tn)
	for _, doc := range textDocs {
		res, err := http.Get(srv.URL + doc.path)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		body := string(raw)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d: %s", doc.path, res.StatusCode, body)
		}
		for k, want := range map[string]string{
			"Content-Type":                doc.contentType,
			"Cache-Control":               "public, max-age=300",
			"Access-Control-Allow-Origin": "*",
		} {
			if got := res.Header.Get(k); got != want {
				t.Errorf("%s: %s = %q, want %q", doc.path, k, got, want)
			}
		}
		want, _ := Render(school.NewContext(t.Context(), tn), st, tn, doc.path, demo.Reference)
		if body != string(want) {
			t.Errorf("%s: the served body differs from Render", doc.path)
		}
	}
	if got := textDocs[1].contentType; got != "text/plain; charset=utf-8" || textDocs[1].path != "/llms.txt" {
		t.Errorf("llms.txt served as %q", got)
	}
}

// authDoc is auth.md as school tn serves it.
func authDoc(t *testing.T, tn *school.School) string {
	t.Helper()
	doc, err := Render(t.Context(), nil, tn, AuthDocPath, demo.Reference)
	if err != nil {
		t.Fatal(err)
	}
	return string(doc)
}

// Spec, Authentication 9: without ID tokens discovery lists neither jwks_uri nor the signing
// algorithm, so the walkthrough must not promise an id_token either.
func TestAuthDocFollowsIDTokens(t *testing.T) {
	on, off := testSchool(t, true, config.CIMD{}), testSchool(t, false, config.CIMD{})
	withDoc, without := authDoc(t, on), authDoc(t, off)
	if !strings.Contains(withDoc, "## ID tokens") || !strings.Contains(withDoc, on.URL("/.well-known/jwks.json")) {
		t.Error("the school with ID tokens has no ID-token section")
	}
	cimd := authDoc(t, testSchool(t, true, config.CIMD{AllowedHosts: []string{"apps.example"}}))
	if !strings.Contains(cimd, "may instead publish a Client ID Metadata Document") || strings.Contains(without, "may instead publish") {
		t.Error("the Client ID Metadata Document paragraph does not follow the school's policy")
	}
	for _, s := range []string{"## ID tokens", "/.well-known/jwks.json", "nonce"} {
		if strings.Contains(without, s) {
			t.Errorf("the school without ID tokens mentions %q", s)
		}
	}
}

// failingCatalog fails on the digital products, after the courses and plans have been read.
type failingCatalog struct{ storage.Catalog }

func (failingCatalog) SearchCourses(context.Context, string, storage.Page) ([]storage.Course, string, error) {
	return []storage.Course{{Offer: storage.Offer{Slug: "c", Title: "C", Currency: "USD"}}}, "", nil
}

func (failingCatalog) ListPublishedPlans(context.Context, storage.Page) ([]storage.MembershipPlan, string, error) {
	return nil, "", nil
}

func (failingCatalog) ListPublishedProducts(context.Context, storage.Page) ([]storage.DigitalProduct, string, error) {
	return nil, "", storage.ErrUnavailable
}

func TestStoreFailureIs503(t *testing.T) {
	srv := serve(t, New(Deps{Catalog: failingCatalog{}}), testSchool(t, true, config.CIMD{}))
	for _, path := range []string{LLMSTxtPath, PricingDocPath} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: status %d, content type %q", path, res.StatusCode, res.Header.Get("Content-Type"))
		}
		if res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: a failure may be cached: %q", path, res.Header.Get("Cache-Control"))
		}
	}
	if _, err := Render(t.Context(), failingCatalog{}, testSchool(t, true, config.CIMD{}), PricingDocPath, demo.Reference); !errors.Is(err, storage.ErrUnavailable) {
		t.Errorf("Render error = %v", err)
	}
}

func TestFormatMoney(t *testing.T) {
	for _, c := range []struct {
		amount   int64
		currency string
		want     string
	}{
		{1999, "USD", "19.99 USD"},
		{5, "EUR", "0.05 EUR"},
		{0, "USD", "0.00 USD"},
		{19800, "JPY", "19800 JPY"},
		{15000, "KRW", "15000 KRW"},
		{1500, "KWD", "1.500 KWD"},
		{-250, "USD", "-2.50 USD"},
	} {
		if got := FormatMoney(c.amount, c.currency); got != c.want {
			t.Errorf("FormatMoney(%d, %s) = %q, want %q", c.amount, c.currency, got, c.want)
		}
	}
}

// The walkthrough says which scope releases which identity claim, as authz's memberClaims
// does: sub, org_id and roles always, name and picture with profile, email with email.
func TestAuthDocSaysWhichScopeReleasesWhichClaim(t *testing.T) {
	for _, idTokens := range []bool{true, false} {
		text := strings.Join(strings.Fields(authDoc(t, testSchool(t, idTokens, config.CIMD{}))), " ")
		for _, want := range []string{
			"Always: `sub` (the person's id), `org_id` (this school's id) and `roles`.",
			"The `profile` scope adds `name` and `picture`; the `email` scope adds `email`.",
			"`openid account:read` therefore gets `sub`, `org_id` and `roles` only.",
			"`state` is required and must be at least 8 characters",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("id tokens %v: auth.md does not say %q", idTokens, want)
			}
		}
		if strings.Contains(text, "returns `sub`, `email`, `name`, `picture`") {
			t.Errorf("id tokens %v: auth.md promises every claim whatever the scopes", idTokens)
		}
	}
}
