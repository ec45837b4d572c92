package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rehome/backend/core"
)

// The Sandbox host of Settings: this machine, or a team host's Podman over
// SSH. Kept, checked and tested by the core's team host service, which the
// terminal uses too.

// SandboxHost is the Sandbox host saved in Settings (an empty URI: this
// machine).
func (svc *RunService) SandboxHost() (core.SandboxHost, error) {
	return onStore(svc.app, func(c *core.Core) (core.SandboxHost, error) { return c.TeamHost().Saved() })
}

// SetSandboxHost checks and saves the Sandbox host; the next run, session
// or answer uses it. Its identity file follows the rule of every host path
// from the UI (access.go), with one more place allowed: the user's own
// ~/.ssh, where ssh looks for keys anyway.
//
// A new team host is where every later input file goes, so the page alone
// cannot choose it: the connection is tested afresh and the user confirms
// the host and its key's fingerprint in the window's own dialog (GTK's,
// outside the page). The browser bridge has no such dialog, so there a
// new team host is refused (ErrHostNeedsWindow); this machine, or the
// host already saved, needs no confirmation.
func (svc *RunService) SetSandboxHost(h core.SandboxHost) (core.SandboxHost, error) {
	a := svc.app
	if err := a.ready(); err != nil {
		return core.SandboxHost{}, err
	}
	if err := a.identityAllowed(h.Identity); err != nil {
		return core.SandboxHost{}, err
	}
	h.URI, h.Identity = strings.TrimSpace(h.URI), strings.TrimSpace(h.Identity)
	if saved, err := a.core.TeamHost().Saved(); err != nil {
		return core.SandboxHost{}, err
	} else if h.URI != "" && h.URI != saved.URI {
		if err := a.confirmHost(h); err != nil {
			a.log.Warn("sandbox host change refused", "uri", h.URI, "err", err)
			return core.SandboxHost{}, err
		}
	}
	return a.core.TeamHost().Save(h)
}

// HostConfirmer is what a window adds to ask a question in a dialog of
// its own, outside the page (GTK's message dialog).
type HostConfirmer interface {
	ConfirmDialog(title, message string) (bool, error)
}

// confirmHost tests h afresh and asks the user, in the window's own
// dialog, whether their files may go there.
func (a *App) confirmHost(h core.SandboxHost) error {
	conf, ok := a.window().(HostConfirmer)
	if !ok {
		return ErrHostNeedsWindow
	}
	if err := core.CheckSandboxHost(h); err != nil {
		return err
	}
	rep := a.core.TeamHost().Test(a.ctx, h)
	if !rep.OK {
		return fmt.Errorf("the Sandbox host was not changed: its connection test failed (%s): press Test and fix that first", rep.Error)
	}
	hk, err := a.core.TeamHost().HostKey(h.URI)
	if err != nil {
		return fmt.Errorf("the Sandbox host was not changed: its key could not be read again (%v)", err)
	}
	msg := fmt.Sprintf("Send the files of every later run, session and answer to %s?\n\nIts host key: %s %s\nPodman %s there (rootless: %v).\n\nSay Yes only if you set up this host yourself: whoever runs it sees your files.",
		rep.Host, hk.KeyType, hk.Fingerprint, rep.PodmanVersion, rep.Rootless)
	yes, err := conf.ConfirmDialog("Change the Sandbox host", msg)
	if err != nil {
		return fmt.Errorf("the Sandbox host was not changed: the window's dialog failed (%v)", err)
	}
	if !yes {
		return ErrHostNotConfirmed
	}
	a.log.Info("sandbox host confirmed in the window", "host", rep.Host, "fingerprint", hk.Fingerprint)
	return nil
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
	p := core.ExpandHome(path)
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
func (svc *RunService) TestSandboxHost(h core.SandboxHost) (core.ConnectionTest, error) {
	a := svc.app
	if err := a.identityAllowed(h.Identity); err != nil {
		return core.ConnectionTest{}, err
	}
	return a.core.TeamHost().Test(a.ctx, h), nil
}

// TrustSandboxHost adds the team host's key to known_hosts if its
// fingerprint is the one the user confirmed.
func (svc *RunService) TrustSandboxHost(uri, fingerprint string) (core.HostKey, error) {
	a := svc.app
	return a.core.TeamHost().Trust(uri, fingerprint)
}
