package link

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Host keys: checked against known_hosts strictly. An unknown host is
// refused with its fingerprint and the way to trust it; a changed key is
// refused loudly; known_hosts is written only by TrustHost, on the user's
// word.

// HostKeyError is a host key rehome refused: unknown (it wraps
// ErrHostUnknown) or not the one known_hosts holds (ErrHostKeyChanged).
type HostKeyError struct {
	// Host is the team host as the user named it (user@host[:port]).
	Host string `json:"host"`
	// URI is the service address that was dialled.
	URI string `json:"uri"`
	// Fingerprint is the offered key's SHA256 fingerprint, as
	// `ssh-keygen -lf` prints it ("SHA256:…").
	Fingerprint string `json:"fingerprint"`
	// KeyType is the offered key's type ("ssh-ed25519").
	KeyType string `json:"key_type"`
	// KnownHosts is the file checked.
	KnownHosts string `json:"known_hosts"`
	// Changed: known_hosts holds another key for this host.
	Changed bool `json:"changed"`
	// Was lists the known keys' fingerprints and lines when Changed.
	Was []string `json:"was,omitempty"`
}

// Error shows the offered key's fingerprint and the way to trust it
// (or, for a changed key, the warning).
func (e *HostKeyError) Error() string {
	if e.Changed {
		return fmt.Sprintf("WARNING: the host key of %s has CHANGED. %s holds %s; the host now offers %s (%s). "+
			"Someone may be intercepting the connection, or the host was reinstalled. rehome refused to connect and left %s as it is: "+
			"ask the host's admin for its key's fingerprint (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` on it); if it is the new one, "+
			"remove the old line with `ssh-keygen -R %s -f %s`, then `rehome sandbox trust %s --fingerprint %s`",
			e.Host, e.KnownHosts, strings.Join(e.Was, ", "), e.Fingerprint, e.KeyType, e.KnownHosts,
			knownHostsName(e), e.KnownHosts, e.URI, e.Fingerprint)
	}
	return fmt.Sprintf("%s is not a known host (not in %s): it offers a %s key with fingerprint %s. "+
		"Check it with the host's admin (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` on it), then trust it with "+
		"`rehome sandbox trust %s --fingerprint %s`, or Trust in Settings → Sandbox host",
		e.Host, e.KnownHosts, e.KeyType, e.Fingerprint, e.URI, e.Fingerprint)
}

// Unwrap is ErrHostKeyChanged or ErrHostUnknown.
func (e *HostKeyError) Unwrap() error {
	if e.Changed {
		return ErrHostKeyChanged
	}
	return ErrHostUnknown
}

func knownHostsName(e *HostKeyError) string {
	t, err := parseSSHURI(e.URI, filepath.Dir(e.KnownHosts))
	if err != nil {
		return e.Host
	}
	return knownhosts.Normalize(t.addr)
}

// openKnownHosts reads known_hosts; a missing file knows no host.
func openKnownHosts(path string) (ssh.HostKeyCallback, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return func(string, net.Addr, ssh.PublicKey) error {
			return &knownhosts.KeyError{}
		}, nil
	}
	cb, err := knownhosts.New(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w (fix or remove that line; OpenSSH's own `ssh-keygen -F HOST -f %s` shows a host's lines)", path, err, path)
	}
	return cb, nil
}

// strictHostKey checks the offered key against known_hosts and refuses an
// unknown or changed one with a *HostKeyError; it never writes the file.
func strictHostKey(t sshTarget, path string) (ssh.HostKeyCallback, []string, error) {
	cb, err := openKnownHosts(path)
	if err != nil {
		return nil, nil, err
	}
	check := func(host string, remote net.Addr, key ssh.PublicKey) error {
		err := cb(host, remote, key)
		var ke *knownhosts.KeyError
		if !errors.As(err, &ke) {
			return err // nil: known and matching; or a revoked key
		}
		hk := &HostKeyError{Host: t.display(), URI: t.uri, Fingerprint: ssh.FingerprintSHA256(key), KeyType: key.Type(), KnownHosts: path}
		for _, w := range ke.Want {
			hk.Changed = true
			hk.Was = append(hk.Was, fmt.Sprintf("%s (%s, line %d)", ssh.FingerprintSHA256(w.Key), w.Key.Type(), w.Line))
		}
		return hk
	}
	return check, knownAlgorithms(cb, t.addr), nil
}

// knownAlgorithms are the host key algorithms known_hosts holds for addr,
// so that the server offers a key of a known type (without them, a host
// known by its RSA key offering ed25519 first would read as changed).
// known_hosts is asked with a key it cannot hold: its answer lists those
// it does.
func knownAlgorithms(cb ssh.HostKeyCallback, addr string) []string {
	probe, err := ssh.NewPublicKey(ed25519.PublicKey(bytes.Repeat([]byte{0}, ed25519.PublicKeySize)))
	if err != nil {
		return nil
	}
	tcp, _ := net.ResolveTCPAddr("tcp", addr)
	var ke *knownhosts.KeyError
	if !errors.As(cb(addr, tcp, probe), &ke) {
		return nil
	}
	var out []string
	add := func(a ...string) {
		for _, x := range a {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
	}
	for _, w := range ke.Want {
		switch typ := w.Key.Type(); typ {
		case ssh.KeyAlgoRSA:
			add(ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA)
		default:
			add(typ)
		}
	}
	return out
}

// HostKey is what a team host offers: the key known_hosts would hold.
type HostKey struct {
	// Host is the host as the user named it (user@host[:port]).
	Host string `json:"host"`
	// Fingerprint is the key's SHA256 fingerprint ("SHA256:…").
	Fingerprint string `json:"fingerprint"`
	// KeyType is the key's type ("ssh-ed25519").
	KeyType string `json:"key_type"`
	// Known: known_hosts already holds this key for the host.
	Known bool `json:"known"`
	// KnownHosts is the file it is (or would be) in.
	KnownHosts string `json:"known_hosts"`
	line       string
}

// ScanHostKey connects to the team host at uri only to read its host key
// (no login), and says whether known_hosts holds it.
func ScanHostKey(uri string, opts ConnectOptions) (HostKey, error) {
	dir := sshDir(opts)
	t, err := parseSSHURI(uri, dir)
	if err != nil {
		return HostKey{}, err
	}
	path := filepath.Join(dir, "known_hosts")
	cb, err := openKnownHosts(path)
	if err != nil {
		return HostKey{}, err
	}
	var got ssh.PublicKey
	errGot := errors.New("host key read")
	cfg := &ssh.ClientConfig{
		User:    t.user,
		Timeout: sshDialTimeout,
		HostKeyCallback: func(_ string, _ net.Addr, key ssh.PublicKey) error {
			got = key
			return errGot
		},
	}
	conn, err := net.DialTimeout("tcp", t.addr, sshDialTimeout)
	if err != nil {
		return HostKey{}, fmt.Errorf("%w: cannot reach %s: %v", errTeamHostUnreachable, t.addr, err)
	}
	defer conn.Close()
	if c, _, _, err := ssh.NewClientConn(conn, t.addr, cfg); err == nil {
		c.Close()
	}
	if got == nil {
		return HostKey{}, fmt.Errorf("%w: %s did not offer a host key (is it an SSH server?)", errTeamHostUnreachable, t.addr)
	}
	tcp, _ := net.ResolveTCPAddr("tcp", t.addr)
	hk := HostKey{Host: t.display(), Fingerprint: ssh.FingerprintSHA256(got), KeyType: got.Type(), KnownHosts: path,
		line: knownhosts.Line([]string{knownhosts.Normalize(t.addr)}, got)}
	hk.Known = cb(t.addr, tcp, got) == nil
	return hk, nil
}

// TrustHost adds the team host's key to known_hosts, only if its
// fingerprint is want (as `ssh-keygen -lf` prints it, "SHA256:…"): the user
// checked it. A host whose known key differs is refused (remove the old
// line first); a known one is left as it is.
func TrustHost(uri, want string, opts ConnectOptions) (HostKey, error) {
	hk, err := ScanHostKey(uri, opts)
	if err != nil {
		return hk, err
	}
	if want != hk.Fingerprint {
		return hk, fmt.Errorf("%w: %s offers %s, not %s; known_hosts is unchanged. Check the fingerprint with the host's admin",
			ErrFingerprintMismatch, hk.Host, hk.Fingerprint, want)
	}
	if hk.Known {
		return hk, nil
	}
	// A changed key is never overwritten.
	t, _ := parseSSHURI(uri, sshDir(opts))
	check, _, err := strictHostKey(t, hk.KnownHosts)
	if err != nil {
		return hk, err
	}
	if key, perr := parseLineKey(hk.line); perr == nil {
		tcp, _ := net.ResolveTCPAddr("tcp", t.addr)
		if err := check(t.addr, tcp, key); errors.Is(err, ErrHostKeyChanged) {
			return hk, err
		}
	}
	if err := appendKnownHost(hk.KnownHosts, hk.line); err != nil {
		return hk, err
	}
	hk.Known = true
	return hk, nil
}

// parseLineKey reads the key back from a known_hosts line.
func parseLineKey(line string) (ssh.PublicKey, error) {
	_, _, key, _, _, err := ssh.ParseKnownHosts([]byte(line + "\n"))
	return key, err
}

// appendKnownHost appends line to known_hosts (made 0600 in a 0700 folder
// if missing), on a line of its own.
func appendKnownHost(path, line string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("make %s: %w", filepath.Dir(path), err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	prefix := ""
	if st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			prefix = "\n"
		}
	}
	if _, err := f.WriteString(prefix + line + "\n"); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Sync()
}
