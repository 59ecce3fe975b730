package seed_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/proctorhq/proctor/seed"
)

// FuzzLoad feeds arbitrary bytes to Load and, when they load, to Validate: neither may panic,
// and every problem must name the file and a line that exists.
func FuzzLoad(f *testing.F) {
	full, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	f.Add([]byte(`{"members": [{"email": "a@x.example", "name": "A", "password": "pw"}]}`))
	f.Add([]byte("courses:\n  - &c {slug: a}\n  - *c\n"))
	f.Add([]byte("payments:\n  - trade_no: T1\n    line_items: [{kind: course, quantity: 1.5}]\n"))
	f.Add([]byte("progress:\n  - lecture: {course: c, section: -1, lecture: 99999999999999999999}\n"))
	f.Add([]byte("form_submissions:\n  - data: {a: [1], a: 2}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fx, err := seed.Load("f.yaml", bytes.NewReader(b))
		// YAML breaks lines at \r as well as \n (and at NEL, LS and PS), so a bound on the
		// number of lines counts them all.
		lines := 1
		for _, br := range []string{"\n", "\r", "\u0085", "\u2028", "\u2029"} {
			lines += bytes.Count(b, []byte(br))
		}
		check := func(errs seed.Errors) {
			for _, e := range errs {
				if e.File != "f.yaml" || e.Line < 0 || e.Line > lines {
					t.Fatalf("problem %q points outside the file (%d lines)", e.Error(), lines)
				}
			}
		}
		if err != nil {
			errs, ok := err.(seed.Errors)
			if !ok || len(errs) == 0 {
				t.Fatalf("Load returned %T %v, want Errors", err, err)
			}
			check(errs)
			return
		}
		check(fx.Validate())
	})
}
