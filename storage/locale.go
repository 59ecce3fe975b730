package storage

import "regexp"

// LocalePattern is the shape of a school's locale (settings.locale): a BCP 47 language tag,
// a primary language subtag of two or three letters and subtags of two to eight letters or
// digits, each after one hyphen (en, en-US, zh-Hant-TW). Letters of either case: BCP 47 tags
// are case-insensitive (RFC 5646 section 2.1.1), and nothing reads the stored locale in a way
// that depends on case, so "EN-us" is accepted as "en-US" is. Seed files and the operator API
// hold a locale to it alike (docs/decisions.md, "Slugs"); the API's schema publishes it as is.
const LocalePattern = `^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$`

// MaxLocaleLen is the longest locale, in bytes (a valid locale is ASCII); RFC 5646 section
// 4.4.1 asks implementations to store tags of at least 35 characters.
const MaxLocaleLen = 35

var localeRe = regexp.MustCompile(LocalePattern)

// ValidLocale reports whether s is a locale: LocalePattern, at most MaxLocaleLen.
func ValidLocale(s string) bool { return len(s) <= MaxLocaleLen && localeRe.MatchString(s) }
