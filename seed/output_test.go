package seed_test

import (
	"strings"
	"testing"

	"github.com/proctorhq/proctor/seed"
	"github.com/proctorhq/proctor/storage"
)

func TestProgressLine(t *testing.T) {
	var b strings.Builder
	p := seed.ProgressLine(&b, 100)
	for i := 1; i <= 50; i++ {
		p(i, 50)
	}
	if b.Len() != 0 {
		t.Errorf("a 50-step import printed %q", b.String())
	}
	p = seed.ProgressLine(&b, 100)
	for i := 1; i <= 1000; i++ {
		p(i, 1000)
	}
	out := b.String()
	if n := strings.Count(out, "\r"); n != 101 {
		t.Errorf("%d updates for 1000 steps, want one per percent from 0 to 100", n)
	}
	if !strings.HasSuffix(out, "\rseeding: 1000/1000 (100%)\n") {
		t.Errorf("output ends %q", out[max(0, len(out)-40):])
	}
}

func TestFormatStats(t *testing.T) {
	got := seed.FormatStats(storage.ImportStats{"payments": 3, "members": 2, "school": 1, "pages": 0, "slots": 4})
	want := "school: 1\nmembers: 2\npayments: 3\nslots: 4\n"
	if got != want {
		t.Errorf("FormatStats = %q, want %q", got, want)
	}
}
