package gormstore

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// BenchmarkGetTokenPair reads one pair by its access signature, the read behind every bearer
// token a protected resource checks and every refresh.
func BenchmarkGetTokenPair(b *testing.B) {
	backends := map[string]func(testing.TB) *Store{DriverSQLite: newSQLiteStore, DriverPostgres: newPostgresStore}
	for _, name := range []string{DriverSQLite, DriverPostgres} {
		b.Run(name, func(b *testing.B) {
			if name == DriverPostgres && os.Getenv(postgresDSNEnv) == "" {
				b.Skipf("set %s", postgresDSNEnv)
			}
			s := backends[name](b)
			ctx := inSchoolA(b, s, nil)
			if _, err := s.CreateClient(ctx, storage.Client{ID: "app", Kind: storage.ClientMember, TokenEndpointAuthMethod: storage.AuthMethodNone}); err != nil {
				b.Fatal(err)
			}
			now := time.Now()
			refresh := now.Add(time.Hour)
			if _, err := s.CreateTokenPair(ctx, storage.TokenPair{
				RequestID: "grant", ClientID: "app", AccessSignature: "access", RefreshSignature: "refresh",
				Resource: "http://127.0.0.1", Scopes: []string{"openid", "account:read"},
				Data:        []byte(`{"session":{"school_id":1,"extra":"` + strings.Repeat("x", 800) + `"}}`),
				RequestedAt: now, AccessExpiresAt: now.Add(time.Hour), RefreshExpiresAt: &refresh, FirstUsedAt: &now,
			}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.GetTokenPair(ctx, storage.AccessToken, "access"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
