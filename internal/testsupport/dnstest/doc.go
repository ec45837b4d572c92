// Package dnstest is a real DNS server on loopback for tests: it answers
// A queries for the names a test gives, so a guard that checks the
// address a name resolves to (DNS rebinding) is tried without the
// network.
package dnstest
