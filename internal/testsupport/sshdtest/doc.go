// Package sshdtest runs a real OpenSSH server (/usr/sbin/sshd -D -e) on
// 127.0.0.1 and a free port, with a host key and a client key generated for
// the test and an authorized_keys for one local user, laid out as sshd's
// StrictModes demands: the tests of rehome's team host (a Podman service
// over SSH) dial it as ssh://user@127.0.0.1:PORT/path/to/podman.sock.
//
// Test support only: under internal/testsupport so that a reader sees it
// is no part of rehome itself and nothing outside the module imports it.
package sshdtest
