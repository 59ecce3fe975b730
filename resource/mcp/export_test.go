package mcp

// Every tool call in the tests has its output checked against the tool's output schema.
func init() { checkOutputs.Store(true) }

// SetCheckOutputs turns that check off for the benchmarks, which measure what a server does.
func SetCheckOutputs(on bool) { checkOutputs.Store(on) }
