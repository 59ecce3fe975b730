package server

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/tenant"
)

// TestPrivateNetworksWarning: a school that may fetch Client ID Metadata Documents from private
// addresses is named in a warning at start-up; the others are not.
func TestPrivateNetworksWarning(t *testing.T) {
	reg := registryOf(t,
		config.Tenant{SchoolID: 1, Subdomain: "north", Name: "Northwind", BaseURL: "http://127.0.0.1:8080",
			CIMD: config.CIMD{AllowedHosts: []string{"127.0.0.1"}, AllowPrivateNetworks: true}},
		config.Tenant{SchoolID: 2, Subdomain: "lumen", Name: "Lumen", BaseURL: "https://lumen.example",
			CIMD: config.CIMD{Open: true}},
	)
	st, err := gormstore.Open(t.Context(), gormstore.Config{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "t.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var logs bytes.Buffer
	sc := config.DefaultServer()
	sc.Secret = config.Secret(strings.Repeat("s", 32))
	if _, err := New(Deps{Config: sc, Tenants: reg, Store: st, Logger: slog.New(slog.NewTextHandler(&logs, nil))}); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if strings.Count(out, "allow_private_networks") != 1 || !strings.Contains(out, "subdomain=north") || !strings.Contains(out, "level=WARN") {
		t.Errorf("start-up log:\n%s", out)
	}
}

// registryOf is the tenant registry of the schools cfgs describe.
func registryOf(t *testing.T, cfgs ...config.Tenant) *tenant.Registry {
	t.Helper()
	var tenants []*tenant.Tenant
	for _, c := range cfgs {
		tn, err := tenant.New(c)
		if err != nil {
			t.Fatal(err)
		}
		tenants = append(tenants, tn)
	}
	reg, err := tenant.NewRegistry(tenants)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}
