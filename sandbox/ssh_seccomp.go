package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// remoteSeccompWait bounds the profile's upload (a shell started on the
// host: its start files run first).
const remoteSeccompWait = 30 * time.Second

// The seccomp profile on a team host. Podman's service reads a container's
// seccomp profile from a path on its own machine (specgen's
// SeccompProfilePath, read by the service), so a path of this machine means
// nothing there: rehome writes the profile into the remote user's cache
// folder over the same SSH connection (one exec session, no shell state
// kept), once per link, and names that path.

// remoteSeccompScript writes stdin to $XDG_CACHE_HOME/rehome (or
// ~/.cache/rehome) under NAME unless the same file is there, and prints its
// path.
const remoteSeccompScript = `set -e
d="${XDG_CACHE_HOME:-$HOME/.cache}/rehome"
mkdir -p "$d"
chmod 700 "$d"
f="$d/NAME"
t="$f.tmp.$$"
cat > "$t"
chmod 644 "$t"
mv -f "$t" "$f"
printf '%s' "$f"`

// remoteSeccomp makes sure the profile is on the host and returns its path
// there (cached for the link's life). openRemote starts it at once in the
// background, so that its round trip (a session on the host: about half a
// second here) overlaps the engine's start.
func (l *sshLink) remoteSeccomp() (string, error) {
	l.secMu.Lock()
	defer l.secMu.Unlock()
	if l.seccompPath != "" {
		return l.seccompPath, nil
	}
	data := seccompProfile()
	sum := sha256.Sum256(data)
	name := "seccomp-" + hex.EncodeToString(sum[:6]) + ".json"
	s, err := l.client.NewSession()
	if err != nil {
		return "", fmt.Errorf("put the sandbox's seccomp profile on %s: %w", l.target.display(), err)
	}
	defer s.Close()
	var out, errb bytes.Buffer
	s.Stdin, s.Stdout, s.Stderr = bytes.NewReader(data), &out, &errb
	ran := make(chan error, 1)
	go func() { ran <- s.Run(strings.ReplaceAll(remoteSeccompScript, "NAME", name)) }()
	select {
	case err = <-ran:
	case <-time.After(remoteSeccompWait):
		s.Close()
		return "", fmt.Errorf("put the sandbox's seccomp profile on %s: a shell there did not answer within %s (a slow ~/.bashrc of %s?): try again", l.target.display(), remoteSeccompWait, l.target.user)
	case <-l.done:
		if lost := l.lostErr(); lost != nil {
			return "", lost
		}
		return "", fmt.Errorf("put the sandbox's seccomp profile on %s: the link is closed", l.target.display())
	}
	if err != nil {
		return "", fmt.Errorf("put the sandbox's seccomp profile on %s (its Podman reads it from a file there; this needs a shell for %s): %v %s",
			l.target.display(), l.target.user, err, strings.TrimSpace(errb.String()))
	}
	p := strings.TrimSpace(out.String())
	if !strings.HasPrefix(p, "/") || !strings.HasSuffix(p, "/"+name) {
		return "", fmt.Errorf("put the sandbox's seccomp profile on %s: it answered %q, not a path", l.target.display(), p)
	}
	l.seccompPath = p
	return p, nil
}
