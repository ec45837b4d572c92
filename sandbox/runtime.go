package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/containers/podman/v4/libpod/define"
	"github.com/containers/podman/v4/pkg/bindings/containers"

	"rehome/backend/atomicfile"

	"rehome/sandbox/link"
)

// RuntimeProbe is the outcome of trying one service and OCI runtime.
type RuntimeProbe struct {
	// Service is the service's URI, or "private" for one rehome started.
	Service string `json:"service"`
	Runtime string `json:"runtime"`
	OK      bool   `json:"ok"`
	Error   string `json:"error,omitempty"`
}

// runtimeState is what earlier probes on this machine learnt; it lives in
// the cache folder, keyed by what could change the answers.
type runtimeState struct {
	Key string `json:"key"`
	// PrivateRuntime is the runtime a private service starts with.
	PrivateRuntime string `json:"private_runtime,omitempty"`
	// Verified lists services (by identity) that started a sandbox.
	Verified []string `json:"verified,omitempty"`
	// Bad lists services that could not, so they are skipped.
	Bad []string `json:"bad,omitempty"`
	// Hosts describes services by URI (see Engine.describe).
	Hosts map[string]Host `json:"hosts,omitempty"`
}

// localCgroupVersion is "v2" on a unified hierarchy, else "v1".
func localCgroupVersion() string {
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		return "v2"
	}
	return "v1"
}

// localControllers lists the cgroup controllers a rootless service may use
// (those systemd delegated to the user's manager, on cgroup v2), or all the
// root hierarchy has for root.
func localControllers() []string {
	path := "/sys/fs/cgroup/cgroup.controllers"
	if uid := os.Geteuid(); uid != 0 {
		path = fmt.Sprintf("/sys/fs/cgroup/user.slice/user-%d.slice/user@%d.service/cgroup.controllers", uid, uid)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return strings.Fields(string(data))
}

// Runtime returns the OCI runtime that runs sandboxes, making sure one works.
// The runtime is a property of the Podman service (its REST API ignores a
// per-container choice), so when the service's runtime cannot start a
// hardened container here — crun 1.8 refuses hybrid cgroups — rehome
// starts a private service with the next runtime and keeps using that.
// The probe starts a trivial container hardened like a real run; what it
// learns is kept for the process and in the cache folder.
func (e *Engine) Runtime(ctx context.Context) (string, error) {
	e.probeMu.Lock()
	defer e.probeMu.Unlock()
	if r := e.verifiedRuntime(); r != "" {
		return r, nil
	}
	st := e.loadState()
	if slices.Contains(st.Verified, e.serviceIdentity()) {
		return e.markVerified(), nil
	}
	var probes []RuntimeProbe
	record := func(err error) {
		p := RuntimeProbe{Service: e.serviceLabel(), Runtime: e.Host().DefaultRuntime, OK: err == nil}
		if err != nil {
			p.Error = printable(err.Error(), 300)
		}
		probes = append(probes, p)
		e.mu.Lock()
		e.probed = probes
		e.mu.Unlock()
	}
	err := e.tryRuntime(ctx)
	record(err)
	if err == nil {
		st.Verified = appendNew(st.Verified, e.serviceIdentity())
		e.saveState(st)
		return e.markVerified(), nil
	}
	if e.opts.Connect.URI != "" || e.remote() {
		// A service the user named (or a team host) is never swapped for
		// a private one here.
		return "", fmt.Errorf("the Podman service at %s cannot start a sandbox: %v", e.connection().URI, err)
	}
	e.mu.Lock()
	cur := e.conn
	e.mu.Unlock()
	if !cur.Started {
		st.Bad = appendNew(st.Bad, cur.URI)
	}
	for _, rt := range link.PrivateRuntimes {
		if e.opts.Runtime != "" && rt != e.opts.Runtime {
			continue
		}
		if cur.Started && rt == cur.Runtime {
			continue
		}
		if _, err := exec.LookPath(rt); err != nil {
			probes = append(probes, RuntimeProbe{Service: "private", Runtime: rt, Error: rt + " is not installed"})
			continue
		}
		// The private service belongs to the engine and outlives this call:
		// its connection must not end with the caller's context.
		keep := context.WithoutCancel(ctx)
		conn, err := link.Open(keep, link.ConnectOptions{ForceStart: true, Runtime: rt, PodmanPath: e.opts.Connect.PodmanPath, Linger: e.opts.Connect.Linger})
		if err != nil {
			probes = append(probes, RuntimeProbe{Service: "private", Runtime: rt, Error: printable(err.Error(), 300)})
			continue
		}
		if err := e.useConn(keep, conn); err != nil {
			conn.Close()
			probes = append(probes, RuntimeProbe{Service: "private", Runtime: rt, Error: printable(err.Error(), 300)})
			continue
		}
		err = e.tryRuntime(ctx)
		record(err)
		if err == nil {
			st.PrivateRuntime = rt
			st.Verified = appendNew(st.Verified, e.serviceIdentity())
			e.saveState(st)
			return e.markVerified(), nil
		}
	}
	e.saveState(st)
	var msgs []string
	for _, p := range probes {
		msgs = append(msgs, fmt.Sprintf("%s with %s: %s", p.Service, p.Runtime, p.Error))
	}
	return "", fmt.Errorf("no OCI runtime can start a sandbox here (%s): install runc with `sudo apt-get install runc`", strings.Join(msgs, "; "))
}

// runtimeKnown says, without a probe, whether the runtime is proved on
// this service (in this process, or by the state file).
func (e *Engine) runtimeKnown() bool {
	e.probeMu.Lock()
	defer e.probeMu.Unlock()
	return e.verifiedRuntime() != "" || slices.Contains(e.loadState().Verified, e.serviceIdentity())
}

func (e *Engine) verifiedRuntime() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.runtimeOK {
		return e.host.DefaultRuntime
	}
	return ""
}

func (e *Engine) markVerified() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.runtimeOK = true
	return e.host.DefaultRuntime
}

// forgetRuntime drops a verdict that a start failure contradicted.
func (e *Engine) forgetRuntime() {
	e.mu.Lock()
	e.runtimeOK = false
	id := e.serviceIdentityLocked()
	e.mu.Unlock()
	st := e.loadState()
	st.Verified = slices.DeleteFunc(st.Verified, func(s string) bool { return s == id })
	e.saveState(st)
}

// serviceIdentity names the service for the state file: a private
// service's socket changes every time, its runtime does not.
func (e *Engine) serviceIdentity() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.serviceIdentityLocked()
}

func (e *Engine) serviceIdentityLocked() string {
	if e.conn.Started {
		return "private:" + e.conn.Runtime
	}
	return "uri:" + e.conn.URI + "|" + e.host.PodmanVersion + "|" + e.host.DefaultRuntime
}

func (e *Engine) serviceLabel() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.conn.Started {
		return "private"
	}
	return e.conn.URI
}

// tryRuntime starts a trivial container, hardened like a real run.
func (e *Engine) tryRuntime(ctx context.Context) error {
	api := e.api(ctx)
	// With the run's seccomp profile and user namespace too: a runtime
	// that cannot hold them is no runtime for the sandbox.
	j, release, err := e.newJob(ctx, "probe", NewRunID(), false)
	if err != nil {
		return err
	}
	defer release()
	j.labels[labelRun] = "probe"
	s := buildSpec(DefaultLimits, j)
	s.Command = []string{"/bin/true"}
	s.Timeout = 60
	created, err := containers.CreateWithSpec(api, s, nil)
	if err != nil {
		return explain(err)
	}
	defer removeContainer(context.WithoutCancel(api), created.ID)
	if err := containers.Start(api, created.ID, nil); err != nil {
		return explain(err)
	}
	wctx, cancel := context.WithTimeout(api, 60*time.Second)
	defer cancel()
	code, err := containers.Wait(wctx, created.ID, new(containers.WaitOptions).WithCondition([]define.ContainerStatus{define.ContainerStateExited, define.ContainerStateStopped}))
	if err != nil && !isNotFound(err) {
		return explain(err)
	}
	if err == nil && code != 0 {
		return fmt.Errorf("a trivial container exited with status %d", code)
	}
	return nil
}

func (e *Engine) cacheDir() string {
	if e.opts.CacheDir != "" {
		return e.opts.CacheDir
	}
	return CacheDir()
}

// stateKey changes with whatever could change a probe's answer: the user,
// the kernel, the cgroup layout, the podman and runtime binaries, the image.
func (e *Engine) stateKey() string {
	h := sha256.New()
	fmt.Fprintf(h, "%d|%s|%s|%s|", os.Geteuid(), link.KernelRelease(), localCgroupVersion(), e.image)
	for _, bin := range []string{"podman", "crun", "runc", "conmon"} {
		if p, err := exec.LookPath(bin); err == nil {
			if fi, err := os.Stat(p); err == nil {
				fmt.Fprintf(h, "%s:%d:%d|", p, fi.Size(), fi.ModTime().UnixNano())
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

func (e *Engine) statePath() string {
	return filepath.Join(e.cacheDir(), fmt.Sprintf("runtime-%d.json", os.Geteuid()))
}

func (e *Engine) loadState() runtimeState {
	key := e.stateKey()
	var st runtimeState
	if data, err := os.ReadFile(e.statePath()); err == nil && json.Unmarshal(data, &st) == nil && st.Key == key {
		return st
	}
	return runtimeState{Key: key}
}

func (e *Engine) saveState(st runtimeState) {
	p := e.statePath()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	data, _ := json.MarshalIndent(st, "", "  ")
	_ = atomicfile.WriteFile(p, data, 0o600)
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
