// Package teamhost makes this machine play a team host for tests: a local
// user (rehome-team, rehome-team2) with a home, subordinate id ranges of its
// own, a runtime folder /run/user/UID and its own rootless Podman service
// listening on /run/user/UID/podman/podman.sock — the same socket a real
// team host serves with `systemctl --user enable --now podman.socket`.
//
// Such a user cannot read the caller's files (root's temporary folders are
// 0700), so a test that passes against it proves that the files it needed
// travelled over the connection: a bind mount of a local path would fail.
//
// Ensure is idempotent and fast when the user and its service are there
// already (a ping); the service is left running (`--time=0`, its own
// session) for the next test in any package, and Stop ends it. LoadImage
// puts the sandbox image into the user's storage through the service (the
// REST load), once.
//
// It needs root (useradd, runuser), newuidmap (package uidmap) and podman;
// without them Ensure skips the test with the reason, or fails it when
// REHOME_REQUIRE_PODMAN=1 (as `make test` sets it).
//
// Test support only: under internal/testsupport so that a reader sees it
// is no part of rehome itself.
package teamhost
