package mcp_test

import (
	"net/http"
	"strings"
	"testing"

	mcpendpoint "github.com/proctorhq/proctor/resource/mcp"
	"github.com/proctorhq/proctor/storage/conformance"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// BenchmarkMyCourses calls my_courses through the real server for a member enrolled in 20
// courses of 200 lectures (4000 lectures, progress on every one), as a stateless client does:
// one JSON-RPC POST per call.
func BenchmarkMyCourses(b *testing.B) {
	mcpendpoint.SetCheckOutputs(false)
	b.Cleanup(func() { mcpendpoint.SetCheckOutputs(true) })
	for _, backend := range storetest.Backends() {
		b.Run(backend, func(b *testing.B) {
			e := newEnv(b, backend)
			e.Seed(e.A, conformance.LargeSchoolData(20, 10, 20))
			token := e.Token(e.A, "busy@example.test", readScope)
			body := toolCall("my_courses", `{"first":20}`)
			check := func() {
				r := e.post(e.A, token, body)
				if r.status != http.StatusOK || !strings.Contains(string(r.body), `"course-19"`) {
					b.Fatalf("my_courses: %d %.300s", r.status, r.body)
				}
			}
			check() // warms the connection and the caches
			b.ReportAllocs()
			b.ResetTimer()
			stop := mcpendpoint.MeasureCPU(b)
			for b.Loop() {
				check()
			}
			stop()
		})
	}
}
