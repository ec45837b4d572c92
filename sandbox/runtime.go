package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/containers/podman/v4/libpod/define"
	"github.com/containers/podman/v4/pkg/bindings/containers"
)

// RuntimeProbe is the outcome of trying one OCI runtime.
type RuntimeProbe struct {
	Runtime string `json:"runtime"`
	OK      bool   `json:"ok"`
	Error   string `json:"error,omitempty"`
}

// runtimeCandidates are tried in order: crun starts containers fastest, runc
// works where crun 1.8 refuses hybrid cgroup hierarchies; "" is whatever
// the service defaults to.
var runtimeCandidates = []string{"crun", "runc", ""}

// Runtime returns the OCI runtime runs use: forced by Options.Runtime, else
// found by starting a trivial container, hardened like a real run, with
// each candidate. The answer is kept for the process and in the cache
// folder, keyed by what could change it.
func (e *Engine) Runtime(ctx context.Context) (string, error) {
	e.mu.Lock()
	if e.runtime != "" {
		r := e.runtime
		e.mu.Unlock()
		return r, nil
	}
	e.mu.Unlock()
	if r, ok := e.readRuntimeCache(); ok {
		e.mu.Lock()
		e.runtime = r
		e.mu.Unlock()
		return r, nil
	}
	probes := e.ProbeRuntimes(ctx)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.probed = probes
	var msgs []string
	for _, p := range probes {
		if p.OK {
			e.runtime = p.Runtime
			if e.runtime == "" {
				e.runtime = e.host.DefaultRuntime
			}
			e.writeRuntimeCache(e.runtime)
			return e.runtime, nil
		}
		name := p.Runtime
		if name == "" {
			name = "default (" + e.host.DefaultRuntime + ")"
		}
		msgs = append(msgs, name+": "+p.Error)
	}
	return "", fmt.Errorf("no OCI runtime can start a sandbox here: %s (install runc with `sudo apt-get install runc`)", strings.Join(msgs, "; "))
}

// ProbeRuntimes tries each candidate runtime once, now.
func (e *Engine) ProbeRuntimes(ctx context.Context) []RuntimeProbe {
	var out []RuntimeProbe
	seen := map[string]bool{}
	for _, rt := range runtimeCandidates {
		name := rt
		if name == "" {
			name = e.host.DefaultRuntime
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		err := e.tryRuntime(ctx, rt)
		p := RuntimeProbe{Runtime: rt, OK: err == nil}
		if err != nil {
			p.Error = printable(err.Error(), 300)
		}
		out = append(out, p)
		if err == nil {
			break
		}
	}
	return out
}

func (e *Engine) tryRuntime(ctx context.Context, rt string) error {
	api := e.conn.ctx
	j := job{
		image:     e.image,
		runtime:   rt,
		name:      fmt.Sprintf("rehome-probe-%s-%d", NewRunID(), os.Getpid()),
		labels:    map[string]string{LabelSandbox: "1", LabelOwner: e.owner, LabelRun: "probe"},
		cgroups:   e.Enforcement(),
		nprocHard: nprocHard(),
	}
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

func (e *Engine) forgetRuntime() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.opts.Runtime != "" {
		return
	}
	e.runtime = ""
	os.Remove(e.runtimeCachePath())
}

func (e *Engine) cacheDir() string {
	if e.opts.CacheDir != "" {
		return e.opts.CacheDir
	}
	return CacheDir()
}

// runtimeCachePath names the cached probe result by everything that could
// change its answer: the service, its version, rootless or not, cgroups,
// kernel, image.
func (e *Engine) runtimeCachePath() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s|%s|%t|%s|%s|%s|%s", e.host.ServiceURI, e.host.PodmanVersion, e.host.Rootless,
		e.host.CgroupVersion, e.host.Kernel, e.host.DefaultRuntime, e.image)
	if e.host.ServiceStarted {
		// A private service's socket path changes every time.
		h.Reset()
		fmt.Fprintf(h, "private|%s|%t|%s|%s|%s|%s", e.host.PodmanVersion, e.host.Rootless,
			e.host.CgroupVersion, e.host.Kernel, e.host.DefaultRuntime, e.image)
	}
	return filepath.Join(e.cacheDir(), "runtime-"+hex.EncodeToString(h.Sum(nil))[:16]+".json")
}

func (e *Engine) readRuntimeCache() (string, bool) {
	data, err := os.ReadFile(e.runtimeCachePath())
	if err != nil {
		return "", false
	}
	var v struct {
		Runtime string `json:"runtime"`
	}
	if json.Unmarshal(data, &v) != nil || v.Runtime == "" {
		return "", false
	}
	return v.Runtime, true
}

func (e *Engine) writeRuntimeCache(rt string) {
	p := e.runtimeCachePath()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	data, _ := json.Marshal(map[string]string{"runtime": rt, "probed": time.Now().UTC().Format(time.RFC3339)})
	tmp := p + ".tmp"
	if os.WriteFile(tmp, data, 0o644) == nil {
		if err := os.Rename(tmp, p); err != nil {
			os.Remove(tmp)
		}
	}
}
