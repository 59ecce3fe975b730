// Package i18n is the member's language: the message catalogues of every page and e-mail, the
// choice of a language for a request, and dates written the way that language writes them.
//
// The catalogues are YAML files under catalog/, one per family of pages and language, named
// <family>.<language>.yaml (login.ja.yaml): adding a language is adding one file per family and
// a line to Supported. English is the source language; a key missing in another language is a
// test failure (TestCatalogueComplete), and at run time falls back to English rather than
// showing a key.
//
// A request's language is chosen in this order: the member's own choice (the language cookie
// the switcher sets), the browser's Accept-Language matched against Supported, the school's
// locale, English. The choice and the school's time zone travel in the request's context as a
// *Localizer (NewContext, FromContext).
package i18n
