package operator

import (
	"context"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// School is the school's identity (from its school file, read only here) and its settings.
type School struct {
	ID        int64          `json:"id"`
	Subdomain string         `json:"subdomain"`
	Name      string         `json:"name"`
	Settings  SchoolSettings `json:"settings"`
	UpdatedAt time.Time      `json:"updated_at"`
}

// SchoolSettings are what operators set about their school.
type SchoolSettings struct {
	Description  string `json:"description"`
	ContactEmail string `json:"contact_email"`
	Timezone     string `json:"timezone" doc:"IANA time zone name."`
	Currency     string `json:"currency" doc:"ISO 4217 code of the school's prices."`
	Locale       string `json:"locale" doc:"BCP 47 language tag."`
}

// SettingsPatch changes the settings it carries. An empty contact_email clears it.
type SettingsPatch struct {
	Description  *string `json:"description,omitempty" maxLength:"5000"`
	ContactEmail *string `json:"contact_email,omitempty" maxLength:"254" pattern:"^$|^[^@\\s]+@[^@\\s]+$"`
	Timezone     *string `json:"timezone,omitempty" minLength:"1" maxLength:"64" doc:"IANA time zone name, e.g. Asia/Tokyo."`
	Currency     *string `json:"currency,omitempty" pattern:"^[A-Z]{3}$"`
	Locale       *string `json:"locale,omitempty" pattern:"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$" maxLength:"35"`
}

// Appearance is the look of the school's pages.
type Appearance struct {
	PrimaryColor string    `json:"primary_color"`
	LogoURL      string    `json:"logo_url"`
	Theme        string    `json:"theme"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// AppearancePatch changes the appearance fields it carries. An empty logo_url removes the logo.
type AppearancePatch struct {
	PrimaryColor *string `json:"primary_color,omitempty" pattern:"^#[0-9a-fA-F]{6}$" doc:"#rrggbb"`
	LogoURL      *string `json:"logo_url,omitempty" maxLength:"2000" pattern:"^$|^https://[^\\s]+$" doc:"An https URL."`
	Theme        *string `json:"theme,omitempty" enum:"light,dark,auto"`
}

func schoolOut(s storage.School) School {
	st := s.Settings
	return School{
		ID: s.ID, Subdomain: s.Subdomain, Name: s.Name, UpdatedAt: s.UpdatedAt,
		Settings: SchoolSettings{Description: st.Description, ContactEmail: st.ContactEmail, Timezone: st.Timezone, Currency: st.Currency, Locale: st.Locale},
	}
}

func appearanceOut(s storage.School) Appearance {
	a := s.Appearance
	return Appearance{PrimaryColor: a.PrimaryColor, LogoURL: a.LogoURL, Theme: a.Theme, UpdatedAt: s.UpdatedAt}
}

func (h *Handler) registerSchool(api huma.API) {
	registerSchoolView(h, api, "get-school", schoolOut)

	registerSchoolChange(h, api, "update-school", func(p SettingsPatch) error {
		// The schema cannot list time zones; the Go runtime's database can.
		if p.Timezone != nil {
			if _, err := time.LoadLocation(*p.Timezone); err != nil || *p.Timezone == "Local" {
				return invalid("body.timezone", "not an IANA time zone name", *p.Timezone)
			}
		}
		return nil
	}, func(s *storage.School, p SettingsPatch) {
		set(&s.Settings.Description, p.Description)
		set(&s.Settings.ContactEmail, p.ContactEmail)
		set(&s.Settings.Timezone, p.Timezone)
		set(&s.Settings.Currency, p.Currency)
		set(&s.Settings.Locale, p.Locale)
	}, schoolOut)

	registerSchoolView(h, api, "get-appearance", appearanceOut)

	registerSchoolChange(h, api, "update-appearance", nil, func(s *storage.School, p AppearancePatch) {
		set(&s.Appearance.PrimaryColor, p.PrimaryColor)
		set(&s.Appearance.LogoURL, p.LogoURL)
		set(&s.Appearance.Theme, p.Theme)
	}, appearanceOut)
}

// registerSchoolView registers the reading of one view of the school's row (its settings, its
// appearance), made by out.
func registerSchoolView[O any](h *Handler, api huma.API, id string, out func(storage.School) O) {
	register(h, api, id, func(ctx context.Context, _ *struct{}) (*struct{ Body O }, error) {
		s, err := h.store.GetSchool(ctx)
		return bodyOf(ctx, h, "school", s, err, out)
	})
}

// registerSchoolChange registers a patch of the school's row: check (if not nil) refuses a patch
// the schema cannot, apply sets the patch's fields on the row while it is locked, and out makes
// the view the response shows.
func registerSchoolChange[P, O any](h *Handler, api huma.API, id string, check func(P) error, apply func(*storage.School, P), out func(storage.School) O) {
	register(h, api, id, func(ctx context.Context, in *struct{ Body P }) (*struct{ Body O }, error) {
		p := in.Body
		if check != nil {
			if err := check(p); err != nil {
				return nil, err
			}
		}
		s, err := h.store.UpdateSchool(ctx, patched(func(s *storage.School) { apply(s, p) }))
		return bodyOf(ctx, h, "school", s, err, out)
	})
}
