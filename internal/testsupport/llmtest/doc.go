// Package llmtest serves the recorded model-server transcripts of
// backend/llm/testdata on a loopback port, for the tests of every face
// that asks a model (the loop's executor, the window's App, the CLI), and
// hostile model servers (endless deltas, one huge line, a huge tool call,
// keep-alive comments forever, a slow trickle) for the tests of rehome's
// bounds.
//
// Test support only: under internal/testsupport so that a reader sees it
// is no part of rehome itself and nothing outside the module imports it.
package llmtest
