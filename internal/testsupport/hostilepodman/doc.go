// Package hostilepodman is a hostile Podman service for attack tests: an
// HTTP server on a unix socket that speaks enough of Podman's REST API
// (the ping the bindings send when they connect, a libpod API version
// header) for rehome to take it for a service, then answers every other
// request with what a hostile one would: a body of gigabytes, an error of
// gigabytes, or a trickle of bytes that never ends.
//
// Test support only: under internal/testsupport so that nothing outside
// the module imports it.
package hostilepodman
