package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rehome/backend/store"
	"rehome/sandbox"
	"rehome/sandbox/link"
)

// The Sandbox host of Settings: this machine, or a team host's Podman over
// SSH (an ssh:// address and an identity file). Every face uses it when no
// --podman is given and $CONTAINER_HOST names no other; its connection
// test, and trusting its host key, are here for every face.

// SandboxHost is the Sandbox host the user saved.
type SandboxHost struct {
	// URI is the team host's ssh://user@host[:port]/path/to/podman.sock;
	// "" is this machine.
	URI string `json:"uri"`
	// Identity is the ssh private key file ("" the defaults: the agent,
	// ~/.ssh/config, ~/.ssh/id_*).
	Identity string `json:"identity"`
}

// sandboxHostKey is the Settings record of the Sandbox host.
const sandboxHostKey = "sandbox_host"

type sandboxHostRecord struct {
	Schema  int         `json:"schema"`
	Host    SandboxHost `json:"host"`
	Updated time.Time   `json:"updated"`
}

// TeamHost is the team host's use cases.
type TeamHost struct{ c *Core }

// TeamHost returns the team host's use cases.
func (c *Core) TeamHost() *TeamHost { return &TeamHost{c: c} }

// connectOptions are the Core's connection options (the ssh folder, the
// passphrase prompt) for host h.
func (t *TeamHost) connectOptions(h SandboxHost) link.ConnectOptions {
	o := t.c.opts.Sandbox.Connect
	o.URI, o.Identity = h.URI, h.Identity
	return o
}

// Saved is the Sandbox host the user saved (zero: this machine). A Core
// that has not opened the database reads it without the write lock.
func (t *TeamHost) Saved() (SandboxHost, error) {
	var rec sandboxHostRecord
	get := func(st *store.Store) error { return st.Get(store.Settings, sandboxHostKey, &rec) }
	var err error
	if t.c.st == nil && !t.c.opts.Brief {
		err = readOnly(t.c.dir, get)
	} else {
		err = t.c.db(get)
	}
	if errors.Is(err, store.ErrNotFound) {
		return SandboxHost{}, nil
	}
	return rec.Host, err
}

// readOnly runs fn on the data folder's database opened read-only (a
// missing database holds no settings).
func readOnly(dir string, fn func(*store.Store) error) error {
	path := filepath.Join(dir, store.FileName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return store.ErrNotFound
	}
	st, err := store.Open(path, store.Options{ReadOnly: true, Timeout: 300 * time.Millisecond})
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(st)
}

// CheckSandboxHost says in words what is wrong with h, nil when it reads.
func CheckSandboxHost(h SandboxHost) error {
	if h.URI == "" {
		if h.Identity != "" {
			return errors.New("an identity file is for a team host: give its ssh:// address too, or leave both empty for this machine")
		}
		return nil
	}
	if !link.IsRemote(h.URI) {
		return fmt.Errorf("%q is not a team host's address: it reads ssh://user@host[:port]/path/to/podman.sock, such as ssh://alice@gpu-box/run/user/1000/podman/podman.sock", h.URI)
	}
	if err := link.CheckTeamHost(h.URI); err != nil {
		return err
	}
	if h.Identity != "" {
		p := link.ExpandHome(h.Identity)
		st, err := os.Stat(p)
		switch {
		case err != nil:
			return fmt.Errorf("there is no identity file %s: give the path of your ssh private key, such as ~/.ssh/id_ed25519", h.Identity)
		case st.IsDir():
			return fmt.Errorf("%s is a folder: give the path of your ssh private key, such as ~/.ssh/id_ed25519", h.Identity)
		case st.Mode().Perm()&0o077 != 0:
			return fmt.Errorf("%w: %s can be read by other users (mode %04o); ssh refuses such a key: `chmod 600 %s`", link.ErrIdentityTooOpen, p, st.Mode().Perm(), p)
		}
	}
	return nil
}

// Save checks and saves the Sandbox host; the engine, if started, is
// stopped so that the next use connects to the new one.
func (t *TeamHost) Save(h SandboxHost) (SandboxHost, error) {
	h.URI, h.Identity = strings.TrimSpace(h.URI), strings.TrimSpace(h.Identity)
	if err := CheckSandboxHost(h); err != nil {
		return SandboxHost{}, err
	}
	var err error
	if h.URI == "" {
		err = t.c.db(func(st *store.Store) error { return st.Delete(store.Settings, sandboxHostKey) })
		if errors.Is(err, store.ErrNotFound) {
			err = nil
		}
	} else {
		rec := sandboxHostRecord{Schema: 1, Host: h, Updated: time.Now().UTC()}
		err = t.c.db(func(st *store.Store) error { return st.Put(store.Settings, sandboxHostKey, rec) })
	}
	if err != nil {
		return SandboxHost{}, err
	}
	t.c.log.Info("sandbox host changed", "uri", h.URI)
	t.c.CloseEngine()
	return h, nil
}

// HostKey reads the key a team host offers and whether it is trusted.
func (t *TeamHost) HostKey(uri string) (link.HostKey, error) {
	return link.ScanHostKey(uri, t.connectOptions(SandboxHost{URI: uri}))
}

// Trust adds the team host's key to known_hosts if its fingerprint is the
// one given.
func (t *TeamHost) Trust(uri, fingerprint string) (link.HostKey, error) {
	hk, err := link.TrustHost(uri, strings.TrimSpace(fingerprint), t.connectOptions(SandboxHost{URI: uri}))
	if err == nil {
		t.c.log.Info("team host trusted", "host", hk.Host, "fingerprint", hk.Fingerprint)
	}
	return hk, err
}

// ConnectionTest is what Test found on a Sandbox host.
type ConnectionTest struct {
	// OK: the host answers and can run sandboxes (its image may still
	// need loading).
	OK bool `json:"ok"`
	// Host names it (user@host[:port], or "this machine").
	Host          string `json:"host"`
	PodmanVersion string `json:"podman_version,omitempty"`
	Rootless      bool   `json:"rootless"`
	CgroupVersion string `json:"cgroup_version,omitempty"`
	// ImagePresent: the sandbox image of this rehome is on the host.
	ImagePresent bool   `json:"image_present"`
	Image        string `json:"image,omitempty"`
	// Error says what failed, in words ("" when OK).
	Error string `json:"error,omitempty"`
	// UnknownKey is set when the host's key is not trusted yet: the
	// window asks to Trust it (a changed key is an Error only).
	UnknownKey *link.HostKeyError `json:"unknown_key,omitempty"`
	// Notes say what is weaker there (rootless on cgroup v1…).
	Notes      []string `json:"notes,omitempty"`
	DurationMS int64    `json:"duration_ms"`
}

// Test reaches host h (zero: this machine) and reports its Podman version,
// rootless or not, its cgroup version and whether the image is there. A
// failure to reach it is in the report, not an error.
func (t *TeamHost) Test(ctx context.Context, h SandboxHost) ConnectionTest {
	start := time.Now()
	rep := ConnectionTest{Host: "this machine"}
	if err := CheckSandboxHost(h); err != nil {
		rep.Error = err.Error()
		return rep
	}
	opts := t.c.opts.Sandbox
	opts.Connect = t.connectOptions(h)
	opts.NoSweep = true
	e, err := sandbox.New(ctx, opts)
	defer func() { rep.DurationMS = time.Since(start).Milliseconds() }()
	if err != nil {
		rep.Error = err.Error()
		if hk, ok := errors.AsType[*link.HostKeyError](err); ok {
			rep.Host = hk.Host
			if !hk.Changed {
				rep.UnknownKey = hk
			}
		}
		return rep
	}
	defer e.Close()
	if th := e.TeamHost(); th != "" {
		rep.Host = th
	}
	hi := e.Host()
	rep.PodmanVersion, rep.Rootless, rep.CgroupVersion = hi.PodmanVersion, hi.Rootless, hi.CgroupVersion
	st, err := e.ImageStatus(ctx)
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	rep.ImagePresent, rep.Image = st.Present, st.Image
	if !st.Present {
		rep.Notes = append(rep.Notes, "the sandbox image is not there yet: the first run loads it over the connection (or `rehome sandbox image load` with --podman)")
	}
	if enf := e.Enforcement(); !enf.Memory {
		rep.Notes = append(rep.Notes, fmt.Sprintf("Podman there is rootless on cgroup %s: it cannot hold a memory ceiling, so rehome's fallback holds it (weaker; `rehome sandbox doctor` says which guarantees hold there)", hi.CgroupVersion))
	}
	rep.OK = true
	return rep
}

// engineOptions are the sandbox options of an engine start: the Core's,
// with the saved Sandbox host when no service is named (by --podman or
// $CONTAINER_HOST).
func (c *Core) engineOptions() sandbox.Options {
	opts := c.opts.Sandbox
	if opts.Connect.URI != "" || os.Getenv("CONTAINER_HOST") != "" {
		return opts
	}
	h, err := c.TeamHost().Saved()
	if err != nil {
		c.log.Warn("read the Sandbox host of Settings (using this machine)", "err", err)
		return opts
	}
	if h.URI != "" {
		opts.Connect.URI = h.URI
		if opts.Connect.Identity == "" {
			opts.Connect.Identity = h.Identity
		}
	}
	return opts
}
