package graphql_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// benchmarkQuery posts query to school A's Member API through the real server, b.N times.
func benchmarkQuery(b *testing.B, query string) {
	for _, backend := range storetest.Backends() {
		b.Run(backend, func(b *testing.B) {
			e := newEnv(b, backend)
			e.Seed(e.A, largeMember(20, 10, 20, 50))
			token := e.Token(e.A, busy, readScope)
			body, _ := json.Marshal(map[string]string{"query": query})
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			do := func() int64 {
				req, _ := http.NewRequest(http.MethodPost, e.A.URL(endpoint.MemberGraphQL), bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d", resp.StatusCode)
				}
				return n
			}
			b.SetBytes(do()) // warms the connection and the caches, and sizes the answer
			b.ReportAllocs()
			b.ResetTimer()
			start, measured := cpuTime()
			for b.Loop() {
				do()
			}
			// The CPU the test process spent per request, client and server together (the
			// PostgreSQL server's is not counted): on a shared machine a steadier measure than
			// the elapsed time of ns/op.
			if end, _ := cpuTime(); measured {
				b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// BenchmarkViewerID is the smallest authenticated request: token check and one field.
func BenchmarkViewerID(b *testing.B) { benchmarkQuery(b, `{ viewer { id } }`) }

// BenchmarkCurriculum is the whole curriculum with progress of a member with 20 courses of 200
// lectures (4000 lectures) in one request.
func BenchmarkCurriculum(b *testing.B) { benchmarkQuery(b, curriculumQuery) }
