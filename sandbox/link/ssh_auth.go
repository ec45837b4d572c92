package link

import (
	"bytes"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// Logging in to a team host: the identity named (--identity,
// $CONTAINER_SSHKEY, Settings), those ~/.ssh/config names for the host, the
// ssh agent, and the default ~/.ssh/id_* keys — as OpenSSH does. A key with
// a passphrase is asked once per connection (one SSH connection carries
// every call: never a prompt per call, Podman #7806), or taken from the
// agent.

// identityFiles are the key files to offer for t, the explicit one first.
// explicit is true when the user named one (it must then exist).
func identityFiles(t sshTarget, opts ConnectOptions) (files []string, explicit bool) {
	id := opts.Identity
	if id == "" {
		id = os.Getenv("CONTAINER_SSHKEY")
	}
	if id != "" {
		return []string{expandHome(id)}, true
	}
	files = append(files, t.identity...)
	dir := sshDir(opts)
	for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil && !slices.Contains(files, p) {
			files = append(files, p)
		}
	}
	return files, false
}

// loadIdentity reads one private key file, refusing one that others can
// read (as ssh does: "UNPROTECTED PRIVATE KEY FILE") and asking its
// passphrase through ask when it has one.
func loadIdentity(path string, ask func(file string) ([]byte, error), inAgent func(ssh.PublicKey) bool) (ssh.Signer, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrIdentity, path, err)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s can be read by other users (mode %04o); ssh refuses such a key and so does rehome: `chmod 600 %s`",
			ErrIdentityTooOpen, path, perm, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrIdentity, path, err)
	}
	s, err := ssh.ParsePrivateKey(data)
	var pm *ssh.PassphraseMissingError
	if errors.As(err, &pm) {
		if pm.PublicKey != nil && inAgent(pm.PublicKey) {
			return nil, errInAgent // the agent holds it: nothing to ask
		}
		if ask == nil {
			return nil, fmt.Errorf("%w: %s has a passphrase and nothing can ask for it here: add it to your ssh agent with `ssh-add %s`", ErrIdentity, path, path)
		}
		pass, aerr := ask(path)
		if aerr != nil {
			return nil, fmt.Errorf("%w: the passphrase of %s: %v", ErrIdentity, path, aerr)
		}
		s, err = ssh.ParsePrivateKeyWithPassphrase(data, pass)
		clear(pass)
		if errors.Is(err, x509.IncorrectPasswordError) {
			return nil, fmt.Errorf("%w: the passphrase of %s is not right", ErrIdentity, path)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not a private key ssh can use: %v", ErrIdentity, path, err)
	}
	return s, nil
}

// authMethods are the ways to log in to t. An explicit identity that
// cannot be used is an error (the user named it); an implicit one is
// skipped when the agent can log in instead. closeAgent ends the agent's
// connection.
func authMethods(t sshTarget, opts ConnectOptions) (methods []ssh.AuthMethod, closeAgent func(), err error) {
	closeAgent = func() {}
	var agentSigners []ssh.Signer
	if sock := os.Getenv("SSH_AUTH_SOCK"); sock != "" {
		if c, derr := net.Dial("unix", sock); derr == nil {
			closeAgent = func() { c.Close() }
			if s, serr := agent.NewClient(c).Signers(); serr == nil {
				agentSigners = s
			}
		}
	}
	inAgent := func(k ssh.PublicKey) bool {
		for _, s := range agentSigners {
			if bytes.Equal(s.PublicKey().Marshal(), k.Marshal()) {
				return true
			}
		}
		return false
	}
	files, explicit := identityFiles(t, opts)
	var signers []ssh.Signer
	for _, f := range files {
		s, lerr := loadIdentity(f, opts.Passphrase, inAgent)
		if errors.Is(lerr, errInAgent) {
			continue
		}
		if lerr != nil {
			if explicit {
				closeAgent()
				return nil, func() {}, lerr
			}
			continue
		}
		signers = append(signers, s)
	}
	all := append(agentSigners, signers...)
	if len(all) == 0 {
		closeAgent()
		return nil, func() {}, fmt.Errorf("%w: no ssh key to log in to %s with: name one with --identity FILE (or $CONTAINER_SSHKEY), or add one to your ssh agent with `ssh-add`", ErrIdentity, t.display())
	}
	return []ssh.AuthMethod{ssh.PublicKeys(all...)}, closeAgent, nil
}
