package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// sampleMyCourses is a my_courses answer of the size BenchmarkMyCourses gets: 20 courses, every
// one with progress and a last watched lecture (about 6 KB of JSON).
func sampleMyCourses() myCoursesOut {
	at := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	out := myCoursesOut{Courses: make([]myCourse, 20)}
	for i := range out.Courses {
		exp := at.AddDate(0, 3, i)
		out.Courses[i] = myCourse{
			Slug: fmt.Sprintf("course-%d", i), Title: fmt.Sprintf("Course %d", i), EnrolledAt: at, ExpireDate: &exp,
			AccessActive: true, Progress: progress{TotalLectures: 200, CompletedLectures: 200, Percent: 100},
			LastWatched: &lastWatched{LectureID: int64(4000 + i), LectureTitle: "Lecture 10.20", PositionSeconds: 60, WatchedAt: at},
		}
	}
	return out
}

// BenchmarkEncodeMyCourses is the answer's way from the tool's output to the bytes of the
// JSON-RPC reply: encodeOutput, then what the SDK's JSON-RPC layer does with the result (the
// result marshalled without HTML escaping into a raw message, which the reply's encoding
// copies again).
func BenchmarkEncodeMyCourses(b *testing.B) {
	checkOutputs.Store(false)
	b.Cleanup(func() { checkOutputs.Store(true) })
	out := sampleMyCourses()
	schema := mustResolve("my_courses", mustSchema[myCoursesOut]())
	type reply struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      int             `json:"id"`
		Result  json.RawMessage `json:"result"`
	}
	marshal := func(v any) []byte {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			b.Fatal(err)
		}
		return bytes.TrimRight(buf.Bytes(), "\n")
	}
	b.ReportAllocs()
	defer MeasureCPU(b)()
	for b.Loop() {
		res, err := encodeOutput(out, schema)
		if err != nil {
			b.Fatal(err)
		}
		marshal(reply{JSONRPC: "2.0", ID: 1, Result: marshal(res)})
	}
}
