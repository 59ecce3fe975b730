package seed_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/seed"
	"github.com/proctorhq/proctor/storage"
)

// want is one expected problem: its line, its field and a part of its message.
type want struct {
	line  int
	field string
	msg   string
}

// match fails t unless got holds exactly the wanted problems, in that order.
func match(t *testing.T, got seed.Errors, wants []want) {
	t.Helper()
	for i, w := range wants {
		if i >= len(got) {
			t.Errorf("missing problem %d: line %d %s: ...%s...", i, w.line, w.field, w.msg)
			continue
		}
		g := got[i]
		if g.Line != w.line || g.Field != w.field || !strings.Contains(g.Msg, w.msg) {
			t.Errorf("problem %d = %q, want line %d %s: ...%s...", i, g.Error(), w.line, w.field, w.msg)
		}
		if g.File != "f.yaml" {
			t.Errorf("problem %d names file %q", i, g.File)
		}
	}
	for _, g := range got[min(len(wants), len(got)):] {
		t.Errorf("unexpected problem: %v", g)
	}
}

// loadErrors loads src and returns its problems, failing t if Load reports something other
// than Errors.
func loadErrors(t *testing.T, src string) seed.Errors {
	t.Helper()
	_, err := seed.Load("f.yaml", strings.NewReader(src))
	if err == nil {
		return nil
	}
	var errs seed.Errors
	if !errors.As(err, &errs) {
		t.Fatalf("Load: %v (%T), want Errors", err, err)
	}
	return errs
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []want
	}{
		{
			name: "unknown key in a record",
			src: `members:
  - email: a@x.example
    name: A
    passwrd: secret
`,
			want: []want{{4, "members[0].passwrd", "unknown key; expected one of: email, name, avatar_url, password, password_hash, roles"}},
		},
		{
			name: "unknown key in a record sold like the others",
			src: `events:
  - slug: e
    price: 100
`,
			want: []want{{3, "events[0].price", "unknown key; expected one of: slug, title, description, price_amount, currency, starts_at, ends_at"}},
		},
		{
			name: "unknown key in a payment, whose status keys are its own",
			src: `payments:
  - trade_no: T
    refunding_state: none
    refund_state: none
`,
			want: []want{{4, "payments[0].refund_state", "unknown key; expected one of: trade_no, member, amount, currency, payment_type, " +
				"created_at, payment_state, paid_at, expired_at, refunding_state, refunded_amount, refunded_at, refund_requested_at, " +
				"bank_code, bank_name, code_no, line_items, adjustments, invoice, installment"}},
		},
		{
			name: "unknown top-level key",
			src:  "school: {}\nmember: []\n",
			want: []want{{2, "member", "unknown key; expected one of: school, members, courses"}},
		},
		{
			name: "unknown key deep down",
			src: `courses:
  - slug: c
    sections:
      - title: S
        lectures:
          - title: L
            length: 10
`,
			want: []want{{7, "courses[0].sections[0].lectures[0].length", "unknown key"}},
		},
		{
			name: "bad time",
			src: `enrollments:
  - member: a@x.example
    course: c
    enrolled_at: yesterday
`,
			want: []want{{4, "enrollments[0].enrolled_at", `"yesterday" is not a time`}},
		},
		{
			name: "time with a space instead of T",
			src:  "events:\n  - starts_at: 2025-12-31 10:00:00\n",
			want: []want{{2, "events[0].starts_at", "want RFC 3339"}},
		},
		{
			name: "impossible date",
			src:  "events:\n  - starts_at: 2025-02-30\n",
			want: []want{{2, "events[0].starts_at", "not a time"}},
		},
		{
			name: "string where a number belongs",
			src:  "courses:\n  - slug: c\n    price_amount: cheap\n",
			want: []want{{3, "courses[0].price_amount", `want a whole number, got "cheap"`}},
		},
		{
			name: "fraction where a whole number belongs",
			src:  "courses:\n  - price_amount: 12.5\n",
			want: []want{{2, "courses[0].price_amount", "want a whole number"}},
		},
		{
			name: "quoted number",
			src:  "courses:\n  - price_amount: \"12\"\n",
			want: []want{{2, "courses[0].price_amount", "want a whole number"}},
		},
		{
			name: "yes is not a boolean",
			src:  "courses:\n  - published: yes\n",
			want: []want{{2, "courses[0].published", "want true or false"}},
		},
		{
			name: "mapping where a list belongs",
			src:  "members:\n  email: a@x.example\n",
			want: []want{{2, "members", "want a list, got a mapping"}},
		},
		{
			name: "list where a string belongs",
			src:  "members:\n  - email: [a, b]\n",
			want: []want{{2, "members[0].email", "want a string, got a list"}},
		},
		{
			name: "repeated key",
			src:  "members:\n  - email: a@x.example\n    email: b@x.example\n",
			want: []want{{3, "members[0].email", "key repeated (first at line 2)"}},
		},
		{
			name: "alias",
			src: `courses:
  - &base
    slug: a
  - *base
`,
			want: []want{{4, "courses[1]", "aliases (*base) are not supported"}},
		},
		{
			name: "merge key",
			src: `courses:
  - &base
    slug: a
  - <<: *base
    slug: b
`,
			want: []want{{4, "courses[1].<<", "unknown key"}},
		},
		{
			name: "two documents",
			src:  "pages: []\n---\npages: []\n",
			want: []want{{2, "", "a second YAML document"}},
		},
		{
			name: "empty file",
			src:  "",
			want: []want{{0, "", "the file is empty"}},
		},
		{
			name: "comments only",
			src:  "# nothing yet\n",
			want: []want{{0, "", "the file is empty"}},
		},
		{
			name: "null document",
			src:  "~\n",
			want: []want{{1, "", "holds no data"}},
		},
		{
			name: "top level is a list",
			src:  "- a\n- b\n",
			want: []want{{1, "", "want a mapping of top-level keys"}},
		},
		{
			name: "syntax error",
			src:  "pages: []\nmembers: a: b\n",
			want: []want{{2, "", "YAML syntax: mapping values are not allowed"}},
		},
		{
			name: "every problem at once, in line order",
			src: `members:
  - email: a@x.example
    nmae: A
courses:
  - slug: c
    price_amount: free
    published: maybe
enrollments:
  - enrolled_at: soon
`,
			want: []want{
				{3, "members[0].nmae", "unknown key"},
				{6, "courses[0].price_amount", "whole number"},
				{7, "courses[0].published", "true or false"},
				{9, "enrollments[0].enrolled_at", "not a time"},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			match(t, loadErrors(t, tc.src), tc.want)
		})
	}
}

func TestLoadRefusesOversizedInput(t *testing.T) {
	r := io.MultiReader(strings.NewReader("pages:\n"), io.LimitReader(spaces{}, seed.MaxSize))
	_, err := seed.Load("f.yaml", r)
	if err == nil || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Fatalf("Load = %v, want a size error", err)
	}
}

type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// An alias bomb ("billion laughs") is refused without being expanded: the answer is quick and
// small, whatever the aliases would have grown to.
func TestLoadRefusesAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("members:\n  - &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 30; i++ {
		prev := fmt.Sprintf("*l%d", i-1)
		fmt.Fprintf(&b, "  - &l%d [%s]\n", i, strings.Join(slices.Repeat([]string{prev}, 9), ", "))
	}
	b.WriteString("courses:\n  - *l29\n")
	start := time.Now()
	errs := loadErrors(t, b.String())
	if len(errs) == 0 {
		t.Fatal("Load accepted an alias bomb")
	}
	if !strings.Contains(errs.Error(), "aliases (*l29) are not supported") {
		t.Errorf("errors do not mention the alias:\n%v", errs)
	}
	// An expanded bomb (9^30 nodes) would never finish: the test's own timeout is the guard,
	// so nothing here depends on how fast the machine parses.
	t.Logf("Load refused the alias bomb in %v", time.Since(start))
	if n := len(errs.Error()); n > 1<<16 {
		t.Errorf("error message is %d bytes", n)
	}
}

func TestLoadTimes(t *testing.T) {
	f := loadString(t, `events:
  - starts_at: 2025-12-31
    ends_at: 2026-01-01T09:30:00+09:00
  - starts_at: 2026-01-01T00:00:00.250Z
    ends_at: "2026-01-02"
`)
	got := []time.Time{f.Data.Events[0].StartsAt, f.Data.Events[0].EndsAt, f.Data.Events[1].StartsAt, f.Data.Events[1].EndsAt}
	want := []time.Time{
		time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 1, 0, 30, 0, 0, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 250e6, time.UTC),
		time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
	}
	for i := range want {
		if !got[i].Equal(want[i]) || got[i].Location() != time.UTC {
			t.Errorf("time %d = %v, want %v in UTC", i, got[i], want[i])
		}
	}
}

// Text is taken as written: YAML would read some of these as numbers or booleans.
func TestLoadKeepsTextAsWritten(t *testing.T) {
	f := loadString(t, `payments:
  - bank_code: 012
    code_no: 1e3
    bank_name: true
    trade_no: 0x1F
`)
	p := f.Data.Payments[0]
	if p.BankCode != "012" || p.CodeNo != "1e3" || p.BankName != "true" || p.TradeNo != "0x1F" {
		t.Errorf("got %q %q %q %q", p.BankCode, p.CodeNo, p.BankName, p.TradeNo)
	}
}

func TestLoadNullMeansAbsent(t *testing.T) {
	f := loadString(t, "enrollments:\n  - member: a@x.example\n    expire_date: null\n    course: ~\n")
	if e := f.Data.Enrollments[0]; e.ExpireDate != nil || e.Course != "" || e.Member != "a@x.example" {
		t.Errorf("got %+v", e)
	}
}

func TestLoadJSON(t *testing.T) {
	src := `{
  "members": [
    {"email": "a@x.example", "name": "A", "password": "pw", "roles": ["student"]}
  ],
  "courses": [
    {"slug": "c", "title": "C", "price_amount": 1990, "currency": "JPY", "published": true,
     "sections": [{"title": "S", "lectures": [{"title": "L", "duration_seconds": 60,
       "is_locked": true, "unlock_at": "2026-03-01T00:00:00Z"}]}]}
  ],
  "enrollments": [
    {"member": "a@x.example", "course": "c", "enrolled_at": "2026-01-01", "lifetime_access": true}
  ],
  "payments": [
    {"trade_no": "T1", "member": "a@x.example", "amount": "1990"}
  ]
}`
	errs := loadErrors(t, src)
	// JSON is YAML: the same decoder, the same line numbers.
	match(t, errs, []want{{14, "payments[0].amount", "want a whole number"}})

	src = strings.Replace(src, `"amount": "1990"`, `"amount": 1990`, 1)
	f := mustLoad(t, "f.json", strings.NewReader(src))
	c := f.Data.Courses[0]
	l := c.Sections[0].Lectures[0]
	if c.PriceAmount != 1990 || !c.Published || l.DurationSeconds != 60 || !l.IsLocked || l.UnlockAt == nil || l.UnlockAt.Month() != time.March {
		t.Errorf("course decoded as %+v", c)
	}
	if e := f.Data.Enrollments[0]; !e.LifetimeAccess || e.EnrolledAt.Day() != 1 {
		t.Errorf("enrollment decoded as %+v", e)
	}
	if f.Data.Payments[0].Amount != 1990 {
		t.Errorf("amount = %d", f.Data.Payments[0].Amount)
	}
}

func loadFile(t *testing.T, path string) *seed.Fixture {
	t.Helper()
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return mustLoad(t, path, r)
}

// loadString loads the fixture src, named f.yaml, and fails the test if it does not load.
func loadString(t *testing.T, src string) *seed.Fixture {
	t.Helper()
	return mustLoad(t, "f.yaml", strings.NewReader(src))
}

func mustLoad(t *testing.T, name string, r io.Reader) *seed.Fixture {
	t.Helper()
	f, err := seed.Load(name, r)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// testdata/full.yaml sets every field of every record type at least once (except those tagged
// yaml:"-"), so this test fails when storage.SchoolData grows a field the decoder cannot read or
// the example does not show.
func TestFullFixtureSetsEveryField(t *testing.T) {
	f := loadFile(t, "testdata/full.yaml")
	if errs := f.Validate(); len(errs) > 0 {
		t.Fatalf("testdata/full.yaml does not validate:\n%v", errs)
	}
	set := map[string]bool{}
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i), path)
			}
		case reflect.Struct:
			if v.Type() == reflect.TypeFor[time.Time]() {
				return
			}
			for i := range v.NumField() {
				p := path + "." + v.Type().Field(i).Name
				if !v.Field(i).IsZero() {
					set[p] = true
				}
				walk(v.Field(i), p)
			}
		}
	}
	walk(reflect.ValueOf(f.Data), "SchoolData")

	var fields func(t reflect.Type, path string) []string
	fields = func(t reflect.Type, path string) []string {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t == reflect.TypeFor[time.Time]() {
			return nil
		}
		var out []string
		for i := range t.NumField() {
			if t.Field(i).Tag.Get("yaml") == "-" {
				// Not part of a seed file by design (e.g. Appearance.LogoFileID, an id that
				// means something only in the database that holds the file).
				continue
			}
			p := path + "." + t.Field(i).Name
			out = append(out, p)
			out = append(out, fields(t.Field(i).Type, p)...)
		}
		return out
	}
	for _, p := range fields(reflect.TypeFor[storage.SchoolData](), "SchoolData") {
		if !set[p] {
			t.Errorf("testdata/full.yaml never sets %s", p)
		}
	}
}
