package cli

// The team host from the terminal, against a real sshd on 127.0.0.1
// forwarding to a Podman service of this machine: `sandbox trust`, a run
// with --podman ssh://… --identity, the Sandbox host of Settings used when
// no --podman is given, and the words of each refusal.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rehome/internal/testsupport/sshdtest"
	"rehome/sandbox/link"
)

// cliTeamHost is sshd in front of a Podman service, and a HOME of the
// test's own (its ~/.ssh is the one the binary reads, never root's).
type cliTeamHost struct {
	srv  *sshdtest.Server
	uri  string
	home string // $HOME
}

func startCLITeamHost(t *testing.T) *cliTeamHost {
	t.Helper()
	needPodmanCLI(t)
	conn, err := link.Open(context.Background(), link.ConnectOptions{ForceStart: true, Runtime: "runc"})
	if err != nil {
		t.Fatalf("a Podman service for the team host: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	sock, ok := strings.CutPrefix(conn.URI, "unix://")
	if !ok {
		t.Fatalf("not a unix socket: %s", conn.URI)
	}
	srv := sshdtest.Start(t, sshdtest.Options{})
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	return &cliTeamHost{srv: srv, uri: srv.URI(sock), home: home}
}

func (h *cliTeamHost) run(t *testing.T, data string, args ...string) cliResult {
	t.Helper()
	r := rehomeCLIEnv(t, data, []string{"HOME=" + h.home, "SSH_AUTH_SOCK=", "CONTAINER_HOST=", "CONTAINER_SSHKEY="}, args...)
	return r
}

// rehomeCLIEnv runs the binary with REHOME_HOME=data and extra variables.
func rehomeCLIEnv(t *testing.T, data string, extra []string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(rehomeBin, args...)
	cmd.Env = append(append(cleanEnv(), "REHOME_HOME="+data), extra...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(interface{ ExitCode() int }); ok && err != nil {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run rehome %v: %v", args, err)
	}
	return cliResult{out.String(), errb.String(), code}
}

func (h *cliTeamHost) knownHosts() string { return filepath.Join(h.home, ".ssh", "known_hosts") }

// Attack: `sandbox trust` adds the host only with the fingerprint its
// admin read (or --yes); without one it shows the fingerprint and writes
// nothing; a wrong one is refused and writes nothing.
func TestSandboxTrustCommand(t *testing.T) {
	h := startCLITeamHost(t)
	data := t.TempDir()
	before := []byte("# the user's own\n")
	os.WriteFile(h.knownHosts(), before, 0o600)
	unchanged := func(what string) {
		t.Helper()
		if got, _ := os.ReadFile(h.knownHosts()); !bytes.Equal(got, before) {
			t.Fatalf("%s changed known_hosts: %q", what, got)
		}
	}
	// A run on the unknown host: refused, with the fingerprint and the way.
	script := filepath.Join(t.TempDir(), "s.py")
	os.WriteFile(script, []byte("print(1)\n"), 0o644)
	r := h.run(t, data, "run", "--podman", h.uri, "--identity", h.srv.ClientKey, script)
	if r.code != 1 || !strings.Contains(r.stderr, h.srv.Fingerprint) || !strings.Contains(r.stderr, "rehome sandbox trust "+h.uri) {
		t.Fatalf("run on an unknown host: %d %q", r.code, r.stderr)
	}
	unchanged("a run on an unknown host")
	r = h.run(t, data, "sandbox", "trust", h.uri)
	wantUsageError(t, cliResult{stderr: r.stderr, code: r.code}, "--fingerprint "+h.srv.Fingerprint)
	if !strings.Contains(r.stdout, h.srv.Fingerprint) || !strings.Contains(r.stdout, "not in") {
		t.Fatalf("trust without a fingerprint printed %q", r.stdout)
	}
	unchanged("trust without a fingerprint")
	r = h.run(t, data, "sandbox", "trust", h.uri, "--fingerprint", "SHA256:"+strings.Repeat("x", 43))
	if r.code != 1 || !strings.Contains(r.stderr, "does not match") || !strings.Contains(r.stderr, "unchanged") {
		t.Fatalf("trust with a wrong fingerprint: %d %q", r.code, r.stderr)
	}
	unchanged("trust with a wrong fingerprint")
	r = h.run(t, data, "sandbox", "trust", h.uri, "--fingerprint", h.srv.Fingerprint)
	if r.code != 0 || !strings.Contains(r.stdout, "trusted") {
		t.Fatalf("trust: %d %q %q", r.code, r.stdout, r.stderr)
	}
	got, _ := os.ReadFile(h.knownHosts())
	if string(got) != string(before)+h.srv.HostKeyLine+"\n" {
		t.Fatalf("known_hosts after trust: %q", got)
	}
	r = h.run(t, data, "sandbox", "trust", h.uri)
	if r.code != 0 || !strings.Contains(r.stdout, "already trusted") {
		t.Fatalf("trust again: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// A run on the team host with --podman and --identity; then with the
// Sandbox host of Settings and no flag; the identity of mode 0644 refused
// in words; a bad address refused by `settings set`.
func TestRunOnTeamHost(t *testing.T) {
	h, _ := teamCLIHost(t) // rehome-team over ssh: root's own shell start files here can stall a minute
	data := t.TempDir()
	script := filepath.Join(t.TempDir(), "s.py")
	os.WriteFile(script, []byte("print(6*7)\n"), 0o600)
	r := h.run(t, data, "run", "--podman", h.uri, "--identity", h.srv.ClientKey, script)
	if r.code != 0 || strings.TrimSpace(strings.SplitN(r.stdout, "\n", 2)[0]) != "42" {
		t.Fatalf("run on the team host: %d %q %q", r.code, r.stdout, r.stderr)
	}

	r = h.run(t, data, "settings", "set", "sandbox_host=http://gpu-box/podman.sock")
	wantUsageError(t, cliResult{stderr: r.stderr, code: r.code}, "ssh://user@host")
	r = h.run(t, data, "settings", "set", "sandbox_host="+h.uri, "sandbox_identity="+h.srv.ClientKey)
	if r.code != 0 || !strings.Contains(r.stdout, h.uri) {
		t.Fatalf("settings set sandbox_host: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = h.run(t, data, "run", script)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "42") {
		t.Fatalf("run with the Sandbox host of Settings: %d %q %q", r.code, r.stdout, r.stderr)
	}
	// The host gone: the run says so, naming it — it was the one used.
	h.srv.Kill()
	r = h.run(t, data, "run", script)
	if r.code != 1 || !strings.Contains(r.stderr, "127.0.0.1") || !strings.Contains(r.stderr, "cannot reach") {
		t.Fatalf("run with the Sandbox host down: %d %q %q", r.code, r.stdout, r.stderr)
	}
	h.srv.Restart(t)
	os.Chmod(h.srv.ClientKey, 0o644)
	r = h.run(t, data, "run", script)
	if r.code != 1 || !strings.Contains(r.stderr, "chmod 600 "+h.srv.ClientKey) {
		t.Fatalf("run with a 0644 identity: %d %q", r.code, r.stderr)
	}
	r = h.run(t, data, "settings", "set", "sandbox_host=")
	if r.code != 0 || !strings.Contains(r.stdout, "this machine") {
		t.Fatalf("settings set sandbox_host= (this machine): %d %q %q", r.code, r.stdout, r.stderr)
	}
}
