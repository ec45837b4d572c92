// Package link holds rehome's connection to a Podman service, below the
// sandbox's engine: finding the user's service or starting a private one
// (its own storage, lingering between commands), and reaching a team
// host's service over rehome's own SSH link (known_hosts, identities, the
// agent, keepalives, a dropped link said in words). Every answer a service
// gives is bounded here, once, on the bindings' HTTP client (answers.go).
//
// Open returns a Connection; its Context is what the podman bindings take.
// Nothing here builds or runs a container: that is package sandbox.
package link
