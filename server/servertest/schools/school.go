package schools

import (
	"testing"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
)

// File is the school file of a school with the default settings (config.DefaultSchool), as a
// school file naming only these fields is read.
func File(id int64, subdomain, name, baseURL string) config.School {
	c := config.DefaultSchool()
	c.SchoolID, c.Subdomain, c.Name, c.BaseURL = id, subdomain, name, baseURL
	return c
}

// School builds the school of file c, for the tests that need a school but no store; an invalid
// file fails the test.
func School(t testing.TB, c config.School) *school.School {
	t.Helper()
	tn, err := school.New(c)
	if err != nil {
		t.Fatalf("schools: school %s: %v", c.Subdomain, err)
	}
	return tn
}
