package app

import (
	"os"
	"path/filepath"
	"strings"

	"rehome/backend/core"
	"rehome/sandbox"
)

// The Sandbox host of Settings: this machine, or a team host's Podman over
// SSH. Kept, checked and tested by the core's team host service, which the
// terminal uses too.

// SandboxHost is the Sandbox host saved in Settings (an empty URI: this
// machine).
func (a *App) SandboxHost() (core.SandboxHost, error) {
	if err := a.ready(); err != nil {
		return core.SandboxHost{}, err
	}
	return a.core.TeamHost().Saved()
}

// SetSandboxHost checks and saves the Sandbox host; the next run, session
// or answer uses it. Its identity file follows the rule of every host path
// from the UI (access.go), with one more place allowed: the user's own
// ~/.ssh, where ssh looks for keys anyway.
func (a *App) SetSandboxHost(h core.SandboxHost) (core.SandboxHost, error) {
	if err := a.ready(); err != nil {
		return core.SandboxHost{}, err
	}
	if err := a.identityAllowed(h.Identity); err != nil {
		return core.SandboxHost{}, err
	}
	return a.core.TeamHost().Save(h)
}

// identityAllowed says whether the UI may make rehome use path as an ssh
// identity: empty (the defaults), the one saved already, a file in the
// user's ~/.ssh, or one the user gave rehome.
func (a *App) identityAllowed(path string) error {
	if path == "" {
		return nil
	}
	if saved, err := a.core.TeamHost().Saved(); err == nil && saved.Identity == path {
		return nil
	}
	p := sandbox.ExpandHome(path)
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(p) {
		dir := filepath.Join(home, ".ssh") + string(filepath.Separator)
		if real, err := filepath.EvalSymlinks(p); err == nil && strings.HasPrefix(real, dir) && !strings.Contains(filepath.ToSlash(p), "/../") {
			return nil
		}
	}
	_, err := a.readable(p)
	return err
}

// TestSandboxHost reaches host h (not saved yet, or saved) and reports its
// Podman, rootless or not, its cgroup version and the image; a host key
// not yet trusted comes back in UnknownKey for the window to confirm.
func (a *App) TestSandboxHost(h core.SandboxHost) (core.ConnectionTest, error) {
	if err := a.identityAllowed(h.Identity); err != nil {
		return core.ConnectionTest{}, err
	}
	return a.core.TeamHost().Test(a.ctx, h), nil
}

// TrustSandboxHost adds the team host's key to known_hosts if its
// fingerprint is the one the user confirmed.
func (a *App) TrustSandboxHost(uri, fingerprint string) (sandbox.HostKey, error) {
	return a.core.TeamHost().Trust(uri, fingerprint)
}
