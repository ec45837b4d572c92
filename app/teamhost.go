package app

import (
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
// or answer uses it.
func (a *App) SetSandboxHost(h core.SandboxHost) (core.SandboxHost, error) {
	if err := a.ready(); err != nil {
		return core.SandboxHost{}, err
	}
	return a.core.TeamHost().Save(h)
}

// TestSandboxHost reaches host h (not saved yet, or saved) and reports its
// Podman, rootless or not, its cgroup version and the image; a host key
// not yet trusted comes back in UnknownKey for the window to confirm.
func (a *App) TestSandboxHost(h core.SandboxHost) (core.ConnectionTest, error) {
	return a.core.TeamHost().Test(a.ctx, h), nil
}

// TrustSandboxHost adds the team host's key to known_hosts if its
// fingerprint is the one the user confirmed.
func (a *App) TrustSandboxHost(uri, fingerprint string) (sandbox.HostKey, error) {
	return a.core.TeamHost().Trust(uri, fingerprint)
}
