package operator

import (
	"context"
	"errors"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/look"
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
	Description  *string   `json:"description,omitempty" maxLength:"5000"`
	ContactEmail *string   `json:"contact_email,omitempty" maxLength:"254" pattern:"^$|^[^@\\s]+@[^@\\s]+$"`
	Timezone     *string   `json:"timezone,omitempty" minLength:"1" maxLength:"64" doc:"IANA time zone name, e.g. Asia/Tokyo."`
	Currency     *Currency `json:"currency,omitempty"`
	Locale       *Locale   `json:"locale,omitempty"`
}

// Appearance is the look of the school's pages. The logo is at most one of logo_url and
// logo_file_id.
type Appearance struct {
	PrimaryColor string    `json:"primary_color"`
	LogoURL      string    `json:"logo_url" doc:"The logo's https URL; empty when the logo is an uploaded file or there is none."`
	LogoFileID   int64     `json:"logo_file_id" doc:"The uploaded image (upload-file) that is the logo; 0 when the logo is a URL or there is none."`
	Theme        string    `json:"theme"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// AppearancePatch changes the appearance fields it carries. The logo is one of two kinds, so a
// patch names at most one of logo_url and logo_file_id: setting either replaces the other, and
// an empty logo_url or a logo_file_id of 0 removes the logo, whichever kind it was.
type AppearancePatch struct {
	PrimaryColor *string `json:"primary_color,omitempty" pattern:"^#[0-9a-fA-F]{6}$" doc:"#rrggbb, reaching a contrast of 4.5:1 (WCAG AA for text) on the pages of the theme: the light page and card (#f6f7f9, #ffffff) for light and auto, the dark ones (#16181b, #202327) for dark."`
	LogoURL      *string `json:"logo_url,omitempty" maxLength:"2000" pattern:"^$|^https://[^\\s]+$" doc:"An https URL, fetched by the server and shown from the school's origin; it replaces an uploaded logo. Empty removes the logo."`
	LogoFileID   *int64  `json:"logo_file_id,omitempty" minimum:"0" doc:"The id of a file uploaded through upload-file: a PNG, JPEG, GIF or WebP image of this school of at most 512 KiB. It replaces a logo URL. 0 removes the logo."`
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
	return Appearance{PrimaryColor: a.PrimaryColor, LogoURL: a.LogoURL, LogoFileID: a.LogoFileID, Theme: a.Theme, UpdatedAt: s.UpdatedAt}
}

func (h *Handler) registerSchool(api huma.API) {
	registerSchoolView(h, api, "get-school", schoolOut)

	registerSchoolChange(h, api, "update-school", func(_ context.Context, p SettingsPatch) error {
		// The schema cannot list time zones; the Go runtime's database can.
		if p.Timezone != nil {
			if _, err := time.LoadLocation(*p.Timezone); err != nil || *p.Timezone == "Local" {
				return invalid("body.timezone", "not an IANA time zone name", *p.Timezone)
			}
		}
		return nil
	}, func(s *storage.School, p SettingsPatch) error {
		set(&s.Settings.Description, p.Description)
		set(&s.Settings.ContactEmail, p.ContactEmail)
		set(&s.Settings.Timezone, p.Timezone)
		set(&s.Settings.Currency, (*string)(p.Currency))
		set(&s.Settings.Locale, (*string)(p.Locale))
		return nil
	}, schoolOut)

	registerSchoolView(h, api, "get-appearance", appearanceOut)

	registerSchoolChange(h, api, "update-appearance", h.checkLogo, func(s *storage.School, p AppearancePatch) error {
		set(&s.Appearance.PrimaryColor, p.PrimaryColor)
		set(&s.Appearance.Theme, p.Theme)
		// One logo at a time: whichever field the patch names replaces the other kind.
		if p.LogoURL != nil {
			s.Appearance.LogoURL, s.Appearance.LogoFileID = *p.LogoURL, 0
		}
		if p.LogoFileID != nil {
			s.Appearance.LogoURL, s.Appearance.LogoFileID = "", *p.LogoFileID
		}
		// The rule is on the appearance the patch makes, not on the patch: a theme changed alone
		// can leave the stored colour unreadable on the new theme's surfaces.
		return appearanceRule(s.Appearance)
	}, appearanceOut)
}

// checkLogo refuses a patch naming both kinds of logo, and a logo_file_id that is not an
// image file of the school (a missing id and another school's are refused alike, so the answer
// tells nothing of other schools' files). It runs before the school's row is locked: the file's
// row is read through the store, which must not be called from inside UpdateSchool's fn.
func (h *Handler) checkLogo(ctx context.Context, p AppearancePatch) error {
	if p.LogoURL != nil && p.LogoFileID != nil {
		return invalid("body.logo_file_id", "give logo_url or logo_file_id, not both: the logo is one or the other", *p.LogoFileID)
	}
	if p.LogoFileID == nil || *p.LogoFileID == 0 {
		return nil
	}
	if h.files == nil {
		return invalid("body.logo_file_id", "this server does not show uploaded logos; use logo_url", *p.LogoFileID)
	}
	f, err := h.files.GetStoredFile(ctx, *p.LogoFileID)
	if errors.Is(err, storage.ErrNotFound) {
		return invalid("body.logo_file_id", "no uploaded file of this school has this id", *p.LogoFileID)
	}
	if err != nil {
		return h.problem(ctx, "file", err)
	}
	if err := logoFileRule(f); err != nil {
		return invalid("body.logo_file_id", err.Error(), *p.LogoFileID)
	}
	return nil
}

// appearanceRule is look.Check as the 422 of the field it refuses.
func appearanceRule(a storage.Appearance) error {
	err := look.Check(a)
	var fe *look.FieldError
	if errors.As(err, &fe) {
		return invalid("body."+fe.Field, fe.Error(), fe.Value)
	}
	return err
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
// the schema cannot, apply sets the patch's fields on the row while it is locked and may refuse
// the row it makes (a huma error, answered as it is; nothing is written), and out makes the
// view the response shows.
func registerSchoolChange[P, O any](h *Handler, api huma.API, id string, check func(context.Context, P) error, apply func(*storage.School, P) error, out func(storage.School) O) {
	register(h, api, id, func(ctx context.Context, in *struct{ Body P }) (*struct{ Body O }, error) {
		p := in.Body
		if check != nil {
			if err := check(ctx, p); err != nil {
				return nil, err
			}
		}
		s, err := h.store.UpdateSchool(ctx, func(s storage.School) (storage.School, error) {
			err := apply(&s, p)
			return s, err
		})
		if err != nil {
			return nil, h.refusal(ctx, "school", err)
		}
		if h.changed != nil {
			h.changed(ctx)
		}
		return &struct{ Body O }{out(s)}, nil
	})
}
