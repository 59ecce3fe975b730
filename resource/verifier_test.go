package resource

import (
	"testing"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

// BoundTo takes what ParseResource issues (the origin, or a path under it) and refuses what it
// never issues, even on the school's host.
func TestBoundTo(t *testing.T) {
	tn := schools.School(t, schools.File(1, "north", "Northwind", "https://north.example/"))
	for _, tc := range []struct {
		resource string
		want     bool
	}{
		{"https://north.example", true},
		{"https://north.example/", true},
		{"https://North.Example:443/mcp", true},
		{"https://south.example/", false},
		{"https://north.example:8443/", false},
		{"http://north.example/", false},
		{"https://x@north.example/", false},
		{"https://north.example@south.example/", false},
		{"https://north.example/?q", false},
		{"https://north.example/#f", false},
		{"north.example", false},
		{"%", false},
		{"", false},
	} {
		if got := BoundTo(tn, tc.resource); got != tc.want {
			t.Errorf("BoundTo(%q) = %v, want %v", tc.resource, got, tc.want)
		}
	}
}
