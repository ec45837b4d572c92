package link

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/kevinburke/ssh_config"
)

// A team host: a Podman service on another machine, reached over SSH as
// ssh://user@host[:port]/path/to/podman.sock. rehome dials it with its own
// SSH client, never the bindings' (which trust an unknown host key on first
// use and append it to known_hosts without asking: containers/common
// pkg/ssh/connection_golang.go, addKnownHostsEntry), checks the host key
// against known_hosts strictly, and forwards a private local socket to the
// remote one (ssh_forward.go).

// IsRemote reports whether uri names a Podman service over SSH.
func IsRemote(uri string) bool { return strings.HasPrefix(strings.ToLower(uri), "ssh://") }

// sshTarget is an ssh:// address resolved against ~/.ssh/config.
type sshTarget struct {
	uri      string   // as given
	alias    string   // the host as written (a Host of ~/.ssh/config, or a name)
	user     string   // remote user
	addr     string   // host:port to dial
	socket   string   // the remote Podman socket's path
	identity []string // identity files named by ~/.ssh/config
}

// display is the target as users name it: user@host[:port].
func (t sshTarget) display() string {
	h := t.alias
	if _, port, _ := net.SplitHostPort(t.addr); port != "22" {
		h += ":" + port
	}
	return t.user + "@" + h
}

// sshDir is the folder of known_hosts, config and default identities.
func sshDir(opts ConnectOptions) string {
	if opts.SSHDir != "" {
		return opts.SSHDir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".ssh"
	}
	return filepath.Join(home, ".ssh")
}

// parseSSHURI reads an ssh:// service address, completing the user, host
// name, port and identity files from dir/config where it names the host.
func parseSSHURI(uri, dir string) (sshTarget, error) {
	u, err := url.Parse(uri)
	if err != nil || !strings.EqualFold(u.Scheme, "ssh") || u.Hostname() == "" {
		return sshTarget{}, fmt.Errorf("%w: %q is not ssh://user@host[:port]/path/to/podman.sock", ErrBadTeamHost, uri)
	}
	if u.Path == "" || u.Path == "/" {
		return sshTarget{}, fmt.Errorf("%w: %q names no socket: add the remote Podman socket's path, such as ssh://%s/run/user/1000/podman/podman.sock (see `podman info --format '{{.Host.RemoteSocket.Path}}'` on that machine)", ErrBadTeamHost, uri, u.Host)
	}
	t := sshTarget{uri: uri, alias: u.Hostname(), socket: u.Path}
	cfg := readSSHConfig(filepath.Join(dir, "config"))
	get := func(key string) string {
		if cfg == nil {
			return ""
		}
		v, _ := cfg.Get(t.alias, key)
		return v
	}
	host := t.alias
	if hn := get("HostName"); hn != "" {
		host = hn
	}
	port := u.Port()
	if port == "" {
		port = get("Port")
	}
	if port == "" {
		port = "22"
	}
	t.addr = net.JoinHostPort(host, port)
	t.user = u.User.Username()
	if t.user == "" {
		t.user = get("User")
	}
	if t.user == "" {
		if name := os.Getenv("USER"); name != "" {
			t.user = name
		} else {
			t.user = "root"
		}
	}
	if cfg != nil {
		ids, _ := cfg.GetAll(t.alias, "IdentityFile")
		for _, id := range ids {
			if p := expandHome(id); p != "" {
				t.identity = append(t.identity, p)
			}
		}
	}
	return t, nil
}

// readSSHConfig parses an ssh client config, nil when there is none or it
// does not read (OpenSSH would refuse it too: rehome goes on without).
func readSSHConfig(path string) *ssh_config.Config {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	cfg, err := ssh_config.Decode(f)
	if err != nil {
		return nil
	}
	return cfg
}

// expandHome turns a leading ~/ into the home folder.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		return filepath.Join(home, rest)
	}
	return p
}

// ExpandHome turns a leading ~/ of a path the user typed into their home
// folder (an identity file from Settings).
func ExpandHome(p string) string { return expandHome(p) }

// CheckTeamHost says whether uri reads as a team host's address, in words.
func CheckTeamHost(uri string) error {
	_, err := parseSSHURI(uri, "")
	if err != nil {
		return err
	}
	return nil
}

// errorsAsHostKey is errors.As for a *HostKeyError.
func errorsAsHostKey(err error) (*HostKeyError, bool) {
	var hk *HostKeyError
	ok := errors.As(err, &hk)
	return hk, ok
}
