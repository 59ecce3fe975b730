package i18n

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
	"gopkg.in/yaml.v3"
)

//go:embed catalog/*.yaml
var catalogFiles embed.FS

// Language is one language the pages are written in.
type Language struct {
	// Tag is the BCP 47 tag: what <html lang> says, the cookie holds and a school's locale
	// names.
	Tag string
	// Name is the language's name in itself, as the switcher shows it.
	Name string
	// dateTime is the time.Format layout of a date with its time of day in this language.
	dateTime string
	// date is the layout of a date alone.
	date string
}

// Supported are the languages of the catalogues; the first is the source language every other
// falls back to.
var Supported = []Language{
	{Tag: "en", Name: "English", dateTime: "2 Jan 2006, 15:04 MST", date: "2 Jan 2006"},
	{Tag: "zh-TW", Name: "繁體中文", dateTime: "2006年1月2日 15:04 MST", date: "2006年1月2日"},
	{Tag: "ja", Name: "日本語", dateTime: "2006年1月2日 15:04 MST", date: "2006年1月2日"},
}

// Default is the tag of the source language.
var Default = Supported[0].Tag

// Catalog is every catalogue, loaded once; it is safe for concurrent use.
type Catalog struct {
	bundle  *goi18n.Bundle
	matcher language.Matcher
	// keys lists the message ids each language has, for the completeness test and Has.
	keys map[string]map[string]bool
	// localizers holds one Localizer per language and time zone: every request of a school
	// shares it rather than building its own.
	localizers sync.Map // localizerKey -> *Localizer
}

type localizerKey struct {
	tag string
	loc *time.Location
}

// Load reads the embedded catalogues.
func Load() (*Catalog, error) { return load(catalogFiles) }

func load(files fs.FS) (*Catalog, error) {
	c := &Catalog{bundle: goi18n.NewBundle(language.English), keys: map[string]map[string]bool{}}
	c.bundle.RegisterUnmarshalFunc("yaml", yaml.Unmarshal)
	tags := make([]language.Tag, len(Supported))
	for i, l := range Supported {
		tags[i] = language.MustParse(l.Tag)
		c.keys[l.Tag] = map[string]bool{}
	}
	c.matcher = language.NewMatcher(tags)
	names, err := fs.Glob(files, "catalog/*.yaml")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		data, err := fs.ReadFile(files, name)
		if err != nil {
			return nil, err
		}
		lang := fileLanguage(name)
		if _, ok := c.keys[lang]; !ok {
			return nil, fmt.Errorf("i18n: %s: %q is not a supported language", name, lang)
		}
		mf, err := c.bundle.ParseMessageFileBytes(data, name)
		if err != nil {
			return nil, fmt.Errorf("i18n: %s: %w", name, err)
		}
		for _, m := range mf.Messages {
			if c.keys[lang][m.ID] {
				return nil, fmt.Errorf("i18n: %s: key %s is also in another file", name, m.ID)
			}
			c.keys[lang][m.ID] = true
		}
	}
	return c, nil
}

// fileLanguage is the language of a catalogue file: the part of its name between the family
// and the extension (login.zh-TW.yaml is zh-TW).
func fileLanguage(name string) string {
	base := strings.TrimSuffix(path.Base(name), path.Ext(name))
	return base[strings.LastIndex(base, ".")+1:]
}

// Has reports whether the source language has the message id.
func (c *Catalog) Has(id string) bool { return c.keys[Default][id] }

// Supports reports whether tag is exactly the tag of a supported language.
func Supports(tag string) bool { return supported(tag) >= 0 }

// supported is the index in Supported of the language whose tag is exactly tag, or -1.
func supported(tag string) int {
	return slices.IndexFunc(Supported, func(l Language) bool { return l.Tag == tag })
}

// Choose picks the language of a request: chosen (the member's cookie) when it names a
// supported language, else the best match of the Accept-Language header, else the school's
// locale, else English.
func (c *Catalog) Choose(chosen, acceptLanguage, schoolLocale string) string {
	if Supports(chosen) {
		return chosen
	}
	if acceptLanguage != "" {
		if prefs, _, err := language.ParseAcceptLanguage(acceptLanguage); err == nil && len(prefs) > 0 {
			_, i, conf := c.matcher.Match(prefs...)
			if conf != language.No {
				return Supported[i].Tag
			}
		}
	}
	if Supports(schoolLocale) {
		return schoolLocale
	}
	return Default
}

// Tags lists the tags of the supported languages.
func Tags() []string {
	out := make([]string, len(Supported))
	for i, l := range Supported {
		out[i] = l.Tag
	}
	return out
}

// Localizer writes messages and dates in one language and time zone.
type Localizer struct {
	lang     Language
	location *time.Location
	l        *goi18n.Localizer
}

// Localizer returns the writer of messages in tag (English when tag is not supported) with
// dates in loc (UTC when nil).
func (c *Catalog) Localizer(tag string, loc *time.Location) *Localizer {
	i := supported(tag)
	if i < 0 {
		i, tag = 0, Default // Supported[0] is the source language
	}
	if loc == nil {
		loc = time.UTC
	}
	key := localizerKey{tag, loc}
	if l, ok := c.localizers.Load(key); ok {
		return l.(*Localizer)
	}
	l, _ := c.localizers.LoadOrStore(key, &Localizer{lang: Supported[i], location: loc, l: goi18n.NewLocalizer(c.bundle, tag, Default)})
	return l.(*Localizer)
}

// Lang is the localizer's language tag.
func (l *Localizer) Lang() string { return l.lang.Tag }

// T writes message id. data is the message's named values as pairs ("Name", value, ...); a
// value named Count also picks the plural form.
func (l *Localizer) T(id string, data ...any) (string, error) {
	cfg := &goi18n.LocalizeConfig{MessageID: id}
	if len(data) > 0 {
		if len(data)%2 != 0 {
			return "", fmt.Errorf("i18n: %s: values must come in name, value pairs", id)
		}
		m := make(map[string]any, len(data)/2)
		for i := 0; i < len(data); i += 2 {
			name, ok := data[i].(string)
			if !ok {
				return "", fmt.Errorf("i18n: %s: value name %v is not a string", id, data[i])
			}
			m[name] = data[i+1]
		}
		cfg.TemplateData = m
		if n, ok := m["Count"]; ok {
			cfg.PluralCount = n
		}
	}
	s, err := l.l.Localize(cfg)
	var missing *goi18n.MessageNotFoundErr
	if errors.As(err, &missing) && s != "" {
		return s, nil // the English text of a message this language lacks
	}
	return s, err
}

// Text is T for Go code that has nowhere to report a failure: a missing message gives its id,
// which the completeness test keeps from happening.
func (l *Localizer) Text(id string, data ...any) string {
	s, err := l.T(id, data...)
	if err != nil {
		return id
	}
	return s
}

// DateTime writes t as a date and time of day in the localizer's language and time zone.
func (l *Localizer) DateTime(t time.Time) string { return t.In(l.location).Format(l.lang.dateTime) }

// DateTimeOr is DateTime, or none for the zero time (a moment that has not come: a passkey
// never used).
func (l *Localizer) DateTimeOr(t time.Time, none string) string {
	if t.IsZero() {
		return none
	}
	return l.DateTime(t)
}

// Date writes t's date in the localizer's language and time zone.
func (l *Localizer) Date(t time.Time) string { return t.In(l.location).Format(l.lang.date) }

type contextKey struct{}

// NewContext returns a copy of ctx carrying l.
func NewContext(ctx context.Context, l *Localizer) context.Context {
	return context.WithValue(ctx, contextKey{}, l)
}

// english is the localizer of a context that carries none: a command, a test, a request
// outside any school.
// It is loaded on first use, not at start-up: most requests never write a word.
var english = sync.OnceValue(func() *Localizer {
	c, err := Load()
	if err != nil {
		panic(err) // the embedded catalogues are checked by the tests of this package
	}
	return c.Localizer(Default, time.UTC)
})

// FromContext returns the localizer ctx carries, or English in UTC.
func FromContext(ctx context.Context) *Localizer {
	if l, ok := ctx.Value(contextKey{}).(*Localizer); ok && l != nil {
		return l
	}
	return english()
}

// NoticeText writes the sentence that done names in notices (the words a page's redirect may
// carry in ?done=, and their messages), "" when it names none: the URL only chooses among the
// page's own fixed sentences, and nothing of it is echoed onto the page.
func (l *Localizer) NoticeText(notices map[string]string, done string) string {
	if key, ok := notices[done]; ok {
		return l.Text(key)
	}
	return ""
}
