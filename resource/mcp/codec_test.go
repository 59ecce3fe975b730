package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

type codecIn struct {
	First int    `json:"first,omitempty"`
	After string `json:"after,omitempty"`
}

type codecOut struct {
	Items []string `json:"items"`
}

func TestDecodeInput(t *testing.T) {
	schema := mustResolve("t", mustSchema[codecIn]())
	for _, tc := range []struct {
		args    string
		want    codecIn
		wantErr string
	}{
		{args: "", want: codecIn{}},
		{args: `{}`, want: codecIn{}},
		{args: `{"first":5,"after":"x"}`, want: codecIn{First: 5, After: "x"}},
		// Case-folded keys would reach the field through encoding/json; the schema refuses them.
		{args: `{"First":5}`, wantErr: `Unknown argument "First"`},
		{args: `{"first":"5"}`, wantErr: `"first" must be an integer`},
		{args: `[1]`, wantErr: "must be a JSON object"},
		{args: `{"first":5`, wantErr: "must be a JSON object"},
	} {
		got, err := decodeInput[codecIn](json.RawMessage(tc.args), schema)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want one mentioning %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %+v, %v; want %+v", tc.args, got, err, tc.want)
		}
	}
}

func TestEncodeOutput(t *testing.T) {
	res, err := encodeOutput(codecOut{Items: []string{"a"}}, mustResolve("t", mustSchema[codecOut]()))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.StructuredContent.(json.RawMessage)); got != `{"items":["a"]}` {
		t.Errorf("structured content %s", got)
	}
	if len(res.Content) != 1 || res.IsError {
		t.Errorf("content %+v, isError %v", res.Content, res.IsError)
	}
	// The check the tests run on every call: output that its schema refuses is an error.
	if _, err := encodeOutput(codecIn{First: 1}, mustResolve("t", mustSchema[codecOut]())); err == nil {
		t.Error("output not matching its schema passed the check")
	}
}

func TestMustResolveRefusesDefaults(t *testing.T) {
	s := mustSchema[codecIn]()
	s.Properties["first"].Default = json.RawMessage(`20`)
	defer func() {
		if recover() == nil {
			t.Error("a schema default was accepted")
		}
	}()
	mustResolve("t", s)
}

// FuzzArgumentProblem: whatever arguments a call carries, every tool's input schema yields one
// sentence about them, without panicking.
func FuzzArgumentProblem(f *testing.F) {
	for _, s := range []string{`{}`, `{"first":0}`, `{"first":"x","after":null}`, `{"slug":[1]}`, `{"topic":"gossip"}`, `{"":{}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		var fields map[string]any
		if json.Unmarshal([]byte(args), &fields) != nil {
			return
		}
		for _, d := range tools {
			msg := argumentProblem(d.tool.InputSchema.(*jsonschema.Schema), fields)
			if msg == "" || strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("%s %s: %q", d.tool.Name, args, msg)
			}
		}
	})
}
