package discovery

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// The Markdown and plain-text documents are templates rather than code so that their prose can
// be read and reviewed as it will be served.
//
//go:embed docs/*.tmpl
var docFiles embed.FS

var docTemplates = template.Must(template.New("").Funcs(template.FuncMap{
	"money":  FormatMoney,
	"inline": inline,
	"link":   linkText,
	"when":   func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
}).ParseFS(docFiles, "docs/*.tmpl"))

// Paths of the documents written for readers of the site rather than for OAuth libraries.
const (
	AuthDocPath    = "/auth.md"
	LLMSTxtPath    = "/llms.txt"
	PricingDocPath = "/pricing.md"
)

// textDoc is one of those documents: its template and the content type it is served with.
type textDoc struct {
	path, template, contentType string
	// catalog says whether rendering reads the store (the auth walkthrough does not).
	catalog bool
}

var textDocs = []textDoc{
	{AuthDocPath, "auth.md.tmpl", "text/markdown; charset=utf-8", false},
	{LLMSTxtPath, "llms.txt.tmpl", "text/plain; charset=utf-8", true},
	{PricingDocPath, "pricing.md.tmpl", "text/markdown; charset=utf-8", true},
}

// docData is what the templates see: the school's URLs and, for the catalogue documents, its
// published offer.
type docData struct {
	Name, Origin string
	IDTokens     bool
	CIMD         bool
	URL          map[string]string

	Courses  []storage.Course
	Plans    []storage.MembershipPlan
	Products []storage.DigitalProduct
	Events   []storage.Event
	// EventsFrom is the moment the upcoming events were listed at.
	EventsFrom time.Time
}

// CourseURL is the public page of a course on the school's origin.
func (d docData) CourseURL(slug string) string { return d.Origin + "/courses/" + slug }

func newDocData(t *school.School) docData {
	u := map[string]string{}
	for name, path := range map[string]string{
		"asMetadata":       endpoint.ServerMetadata,
		"oidc":             endpoint.OpenIDConfiguration,
		"resourceMetadata": endpoint.ProtectedResourceMetadata,
		"mcpMetadata":      endpoint.ProtectedResourceMetadata + endpoint.MCP,
		"memberMetadata":   endpoint.ProtectedResourceMetadata + endpoint.MemberGraphQL,
		"authorize":        endpoint.Authorize,
		"token":            endpoint.Token,
		"revoke":           endpoint.Revoke,
		"userinfo":         endpoint.Userinfo,
		"register":         endpoint.Register,
		"jwks":             endpoint.JWKS,
		"auth":             AuthDocPath,
		"llms":             LLMSTxtPath,
		"pricing":          PricingDocPath,
		"openapi":          endpoint.OpenAPI,
		"mcp":              endpoint.MCP,
		"member":           endpoint.MemberGraphQL,
	} {
		u[name] = t.URL(path)
	}
	return docData{Name: t.Name, Origin: t.Origin, IDTokens: t.Features.IDTokens, CIMD: t.CIMD.Enabled(), URL: u}
}

// loadCatalog reads every published course, plan and product and every event still to end at
// now, following the store's pages to the end: the documents list the whole offer or fail.
func loadCatalog(ctx context.Context, c storage.Catalog, now time.Time, d *docData) error {
	var err error
	if d.Courses, err = all(func(p storage.Page) ([]storage.Course, string, error) {
		return c.SearchCourses(ctx, "", p)
	}); err != nil {
		return fmt.Errorf("courses: %w", err)
	}
	if d.Plans, err = all(func(p storage.Page) ([]storage.MembershipPlan, string, error) {
		return c.ListPublishedPlans(ctx, p)
	}); err != nil {
		return fmt.Errorf("membership plans: %w", err)
	}
	if d.Products, err = all(func(p storage.Page) ([]storage.DigitalProduct, string, error) {
		return c.ListPublishedProducts(ctx, p)
	}); err != nil {
		return fmt.Errorf("digital products: %w", err)
	}
	if d.Events, err = all(func(p storage.Page) ([]storage.Event, string, error) {
		return c.ListUpcomingEvents(ctx, now, p)
	}); err != nil {
		return fmt.Errorf("events: %w", err)
	}
	d.EventsFrom = now
	return nil
}

// all collects every item of a paged list (storage.EachPage).
func all[T any](list func(storage.Page) ([]T, string, error)) ([]T, error) {
	var out []T
	if err := storage.EachPage(list, func(it T) { out = append(out, it) }); err != nil {
		return nil, err
	}
	return out, nil
}

// Render writes the document served at path (AuthDocPath, LLMSTxtPath or PricingDocPath) for
// the school carried by ctx. now decides which events are still upcoming.
func Render(ctx context.Context, c storage.Catalog, t *school.School, path string, now time.Time) ([]byte, error) {
	for _, doc := range textDocs {
		if doc.path == path {
			return render(ctx, c, t, doc, now)
		}
	}
	return nil, fmt.Errorf("discovery: no document at %s", path)
}

func render(ctx context.Context, c storage.Catalog, t *school.School, doc textDoc, now time.Time) ([]byte, error) {
	d := newDocData(t)
	if doc.catalog {
		if c == nil {
			return nil, fmt.Errorf("discovery: %s needs the catalogue", doc.path)
		}
		if err := loadCatalog(ctx, c, now, &d); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	if err := docTemplates.ExecuteTemplate(&buf, doc.template, d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// serveText serves one text document. The whole body is rendered before anything is written,
// so a store failure answers 503 instead of a truncated document that a cache would keep.
func (h *Handler) serveText(doc textDoc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, ok := publicSchool(w, r)
		if !ok {
			return
		}
		body, err := render(r.Context(), h.deps.Catalog, t, doc, h.now())
		if err != nil {
			h.deps.Logger.ErrorContext(r.Context(), "discovery: render document", "path", doc.path, "school_id", t.SchoolID, "err", err)
			edge.WriteError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "The document cannot be built right now; retry later.")
			return
		}
		w.Header().Set("Content-Type", doc.contentType)
		w.Header().Set("Cache-Control", documentCacheControl)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(body)
		}
	})
}

// minorUnitDigits lists the currencies whose minor unit is not a hundredth (ISO 4217); every
// other code is shown with two decimals. Amounts are stored as integers in the minor unit, so
// 1999 USD is 19.99 and 1990 JPY is 1990.
var minorUnitDigits = map[string]int{
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0,
	"RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
}

// CurrencyExponent is the number of decimals of the currency's minor unit.
func CurrencyExponent(currency string) int {
	if n, ok := minorUnitDigits[strings.ToUpper(currency)]; ok {
		return n
	}
	return 2
}

// FormatMoney writes an amount in minor units as a decimal followed by the currency code:
// FormatMoney(1999, "USD") is "19.99 USD", FormatMoney(19800, "JPY") is "19800 JPY".
func FormatMoney(amount int64, currency string) string {
	sign := ""
	u := uint64(amount)
	if amount < 0 {
		sign, u = "-", uint64(-amount)
	}
	digits := CurrencyExponent(currency)
	s := strconv.FormatUint(u, 10)
	if digits > 0 {
		if len(s) <= digits {
			s = strings.Repeat("0", digits-len(s)+1) + s
		}
		s = s[:len(s)-digits] + "." + s[len(s)-digits:]
	}
	return sign + s + " " + strings.ToUpper(currency)
}

// inline folds text onto one line, so that a description taken from the database cannot
// start a heading or a new list item of its own.
func inline(s string) string { return strings.Join(strings.Fields(s), " ") }

// linkText makes s safe as the text of a Markdown link: brackets would end the text early.
func linkText(s string) string {
	return strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`).Replace(inline(s))
}
