// Command e2e-sshd makes this machine a team host for the browser tests
// (frontend/e2e): a Podman service (runc) and a real sshd in front of it
// (sshdtest). It prints one JSON line — the ssh:// address, the client
// key, the host key's fingerprint — and stops both when its stdin closes.
// Test support only, run as root.
package main
