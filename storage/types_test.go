package storage

import (
	"slices"
	"testing"
)

func TestRoleNames(t *testing.T) {
	if got := RoleNames([]Role{RoleAdmin, RoleStudent}); !slices.Equal(got, []string{"admin", "student"}) {
		t.Errorf("RoleNames(admin, student) = %q", got)
	}
	if got := RoleNames(nil); got == nil || len(got) != 0 {
		t.Errorf("RoleNames(nil) = %#v, want an empty, non-nil slice", got)
	}
}
