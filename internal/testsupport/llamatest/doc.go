// Package llamatest starts llama.cpp's real llama-server with the tiny
// model of package tinymodel, for tests of the ask loop against a real
// model server process (as net/http/httptest starts a real HTTP server).
//
// The binary is $REHOME_LLAMA_SERVER, else the one build/llm/llama-server.sh
// has built into its cache (`make llama`); a test never builds it (eight
// minutes). Without it the test is skipped with the reason, or fails when
// REHOME_REQUIRE_LLAMA is set (as `make test` sets it).
//
// Test support only: under internal/testsupport so that a reader sees it
// is no part of rehome itself and nothing outside the module imports it.
package llamatest
