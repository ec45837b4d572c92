// Package recipe holds the recipe of rehome's Code Interpreter sandbox image
// — the build script, the Debian package list, the stubbed packages, the
// Python runner baked into the image and the seccomp profile it carries as a
// label — embedded in the rehome binary, so that rehome knows the image tag
// it expects and can build the image on a machine that has only the binary
// and a Debian mirror.
package recipe
