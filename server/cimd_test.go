package server

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// TestPrivateNetworksWarning: a school that may fetch Client ID Metadata Documents from private
// addresses is named in a warning at start-up; the others are not.
func TestPrivateNetworksWarning(t *testing.T) {
	reg := registryOf(t,
		config.School{SchoolID: 1, Subdomain: "north", Name: "Northwind", BaseURL: "http://127.0.0.1:8080",
			CIMD: config.CIMD{AllowedHosts: []string{"127.0.0.1"}, AllowPrivateNetworks: true}},
		config.School{SchoolID: 2, Subdomain: "lumen", Name: "Lumen", BaseURL: "https://lumen.example",
			CIMD: config.CIMD{Open: true}},
	)
	var logs bytes.Buffer
	sc := config.DefaultServer()
	sc.Secret = schools.Secret
	if _, err := New(Deps{Config: sc, Schools: reg, Store: storetest.Open(t, gormstore.DriverSQLite), Logger: slog.New(slog.NewTextHandler(&logs, nil))}); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if strings.Count(out, "allow_private_networks") != 1 || !strings.Contains(out, "subdomain=north") || !strings.Contains(out, "level=WARN") {
		t.Errorf("start-up log:\n%s", out)
	}
}

// registryOf is the school registry of the schools cfgs describe.
func registryOf(t *testing.T, cfgs ...config.School) *school.Registry {
	t.Helper()
	var list []*school.School
	for _, c := range cfgs {
		list = append(list, schools.School(t, c))
	}
	reg, err := school.NewRegistry(list)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}
