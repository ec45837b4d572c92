package sandbox

import (
	"context"
	"fmt"
	"maps"
	"os"
	"sync"
	"time"

	"github.com/containers/podman/v4/pkg/bindings"
	"github.com/containers/podman/v4/pkg/bindings/system"

	"rehome/sandbox/link"
)

// Options configure an Engine.
type Options struct {
	Connect link.ConnectOptions
	// Image overrides the image reference (default: ImageRef()).
	Image string
	// Runtime forces an OCI runtime ("runc", "crun"); empty: probe.
	Runtime string
	// CacheDir holds the image archive and probe results (default:
	// CacheDir()).
	CacheDir string
	// NoSweep skips removing containers that a dead rehome left behind.
	NoSweep bool
	// Trace, when set, is told each step of a run as it ends (timing).
	Trace func(step string)
}

// Host is what the Podman service reports about itself.
type Host struct {
	PodmanVersion  string   `json:"podman_version"`
	APIVersion     string   `json:"api_version"`
	Rootless       bool     `json:"rootless"`
	CgroupVersion  string   `json:"cgroup_version"`
	CgroupManager  string   `json:"cgroup_manager"`
	Controllers    []string `json:"cgroup_controllers"`
	Kernel         string   `json:"kernel"`
	DefaultRuntime string   `json:"default_runtime"`
	Seccomp        bool     `json:"seccomp"`
	ServiceURI     string   `json:"service_uri"`
	// ServiceStarted is true when rehome started the service itself.
	ServiceStarted bool `json:"service_started"`
	// StorageDriver is the storage driver of a service rehome did not
	// start ("overlay", "vfs"…); see Engine.StorageDriver for any service.
	StorageDriver string `json:"storage_driver,omitempty"`
	// Storage is the own storage of a rootless service rehome started.
	Storage link.PrivateStorage `json:"storage"`
	// FilesTravel: the service cannot see this machine's files, so
	// inputs are sent over the connection (link.Connection.FilesTravel).
	FilesTravel bool `json:"files_travel,omitempty"`
}

// Engine runs code in sandboxes through one Podman service. It is safe for
// concurrent use.
type Engine struct {
	conn  *link.Connection
	opts  Options
	host  Host
	image string
	owner string

	probeMu sync.Mutex // one runtime probe at a time

	mu        sync.Mutex // guards what follows
	runtimeOK bool
	probed    []RuntimeProbe
	runs      map[string]context.CancelFunc
	idsInUse  map[uint32]bool
	// swept closes when New's background sweep of leftovers has ended
	// (nil: none); stopSweep ends it early.
	swept     chan struct{}
	stopSweep context.CancelFunc
	// noUserNS leaves rootful runs in the host's user namespace (only the
	// measurement of what the per-run namespace costs sets it).
	noUserNS bool
	// stageBase, when set, is the one folder this engine's runs make
	// their private folders in, instead of stageRoots' (only a test sets
	// it: a folder of its own, which no other process's runs share).
	stageBase string
	bgState   // ssh_lost.go
}

// New connects to Podman, reads what the host can enforce, and removes
// containers left over by a rehome process that died mid-run. Which
// service it uses follows what earlier runs learnt (see Runtime).
func New(ctx context.Context, opts Options) (*Engine, error) {
	e := &Engine{opts: opts, runs: map[string]context.CancelFunc{}, idsInUse: map[uint32]bool{}, owner: ownerLabel()}
	e.image = opts.Image
	if e.image == "" {
		e.image = ImageRef()
	}
	copts := opts.Connect
	if copts.URI == "" {
		st := e.loadState()
		copts.Skip = append(copts.Skip, st.Bad...)
		copts.Runtime = st.PrivateRuntime
		if opts.Runtime != "" {
			// The runtime is the service's: a forced one needs our own.
			copts.Runtime, copts.ForceStart = opts.Runtime, true
		}
	}
	conn, err := link.Open(ctx, copts)
	if err != nil {
		return nil, err
	}
	e.trace("connected")
	if err := e.useConn(ctx, conn); err != nil {
		conn.Close()
		return nil, err
	}
	if h := e.Host(); skipUserStorage(copts, h) {
		// The user's socket stores images with vfs: every run would copy
		// the whole image. rehome's own service keeps its own overlay
		// storage instead (storage.go); the user's is left as it is.
		copts.ForceStart = true
		own, err := link.Open(ctx, copts)
		if err == nil {
			err = e.useConn(ctx, own)
		}
		if err != nil {
			conn.Close()
			if own != nil {
				own.Close()
			}
			return nil, fmt.Errorf("your Podman socket (%s) stores images with vfs, and rehome's own Podman service with overlay storage did not start: %w", h.ServiceURI, err)
		}
	}
	e.trace("service info")
	if !opts.NoSweep {
		// In the background: listing the service's sandboxes costs a
		// `runc state` per running container (100 ms and more on a busy
		// host), and nothing a run does waits on leftovers being gone.
		// Close stops it: what it did not reach, the next start sweeps.
		e.swept = make(chan struct{})
		sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
		e.stopSweep = stop
		go func() {
			defer stop()
			defer close(e.swept)
			e.Sweep(sctx)
			if conn := e.connection(); conn.Remote {
				e.removeLost(sctx, conn)
			}
			sweepStages(stageRoots(e.cacheDir()))
			sweepOldRunFolders()
			e.trace("swept")
		}()
	}
	return e, nil
}

// sweepWait is how long Close waits for New's sweep of leftovers, once
// stopped, to let go of the service (a command that is ending must not
// wait on a busy service's listing: Ctrl-C during an image save waited
// 2-6 s here for it).
const sweepWait = 250 * time.Millisecond

// takeIDBase picks the host ids of a rootful run's user namespace, apart
// from those this process holds and those taken.
func (e *Engine) takeIDBase(taken ...uint32) uint32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	avoid := maps.Clone(e.idsInUse)
	for _, b := range taken {
		avoid[b] = true
	}
	b := pickIDBase(avoid)
	e.idsInUse[b] = true
	return b
}

func (e *Engine) releaseIDBase(b uint32) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.idsInUse, b)
}

// useConn switches the engine to conn (closing a private service it
// replaces) and learns the service's facts.
func (e *Engine) useConn(ctx context.Context, conn *link.Connection) error {
	h, err := e.describe(ctx, conn)
	if err != nil {
		return err
	}
	h.FilesTravel = conn.FilesTravel
	e.mu.Lock()
	old := e.conn
	e.conn, e.host, e.runtimeOK = conn, h, false
	e.mu.Unlock()
	if old != nil && old != conn {
		old.Close()
	}
	return nil
}

// The most of a service's description rehome keeps: a team host is
// someone else's machine, and its words reach the cache folder, the
// terminal, the window's dialogs and the self-test's report.
const (
	maxHostField       = 200 // characters of a version, a kernel, a name
	maxHostControllers = 32  // cgroup controllers (a kernel has about 14)
)

// boundHost holds a service's description to maxHostField printable
// characters a field and maxHostControllers controllers.
func boundHost(h Host) Host {
	for _, f := range []*string{&h.PodmanVersion, &h.APIVersion, &h.CgroupVersion, &h.CgroupManager, &h.Kernel, &h.DefaultRuntime, &h.StorageDriver} {
		*f = printable(*f, maxHostField)
	}
	if len(h.Controllers) > maxHostControllers {
		h.Controllers = h.Controllers[:maxHostControllers]
	}
	cs := make([]string, len(h.Controllers))
	for i, c := range h.Controllers {
		cs[i] = printable(c, maxHostField)
	}
	h.Controllers = cs
	return h
}

// describe learns what a service is. Podman's info endpoint takes about a
// second (it asks the package manager about every binary), so a service
// rehome started is described from what rehome knows, and another
// service's description is kept in the cache folder, keyed by its address
// and version.
func (e *Engine) describe(ctx context.Context, conn *link.Connection) (Host, error) {
	version := bindings.ServiceVersion(conn.Context()).String()
	if conn.Started {
		return Host{
			PodmanVersion:  version,
			APIVersion:     version,
			Rootless:       os.Geteuid() != 0,
			CgroupVersion:  localCgroupVersion(),
			CgroupManager:  "",
			Controllers:    localControllers(),
			Kernel:         link.KernelRelease(),
			DefaultRuntime: conn.Runtime,
			Seccomp:        true,
			ServiceURI:     conn.URI,
			ServiceStarted: true,
			Storage:        conn.Storage,
		}, nil
	}
	st := e.loadState()
	if h, ok := st.Hosts[conn.URI]; ok && h.APIVersion == version && h.StorageDriver != "" {
		return boundHost(h), nil
	}
	info, err := system.Info(callCtx{Context: ctx, conn: conn.Context()}, nil)
	if err != nil {
		return Host{}, fmt.Errorf("ask the Podman service at %s about itself: %w", conn.URI, err)
	}
	h := Host{
		PodmanVersion: info.Version.Version,
		APIVersion:    version,
		Rootless:      info.Host.Security.Rootless,
		CgroupVersion: info.Host.CgroupsVersion,
		CgroupManager: info.Host.CgroupManager,
		Controllers:   info.Host.CgroupControllers,
		Kernel:        info.Host.Kernel,
		Seccomp:       info.Host.Security.SECCOMPEnabled,
		ServiceURI:    conn.URI,
		StorageDriver: info.Store.GraphDriverName,
	}
	if info.Host.OCIRuntime != nil {
		h.DefaultRuntime = info.Host.OCIRuntime.Name
	}
	h = boundHost(h)
	if st.Hosts == nil {
		st.Hosts = map[string]Host{}
	}
	st.Hosts[conn.URI] = h
	e.saveState(st)
	return h, nil
}

func (e *Engine) trace(step string) {
	if e.opts.Trace != nil {
		e.opts.Trace(step)
	}
}

// api is the context of one call to the current service: the caller's
// cancellation and deadline, with the bindings' connection. Every Podman
// call goes through it, so that Ctrl-C, a closed window or a stopped run
// ends the call itself.
func (e *Engine) api(ctx context.Context) context.Context {
	e.mu.Lock()
	defer e.mu.Unlock()
	return callCtx{Context: ctx, conn: e.conn.Context()}
}

// callCtx is a caller's context that also carries a connection's values
// (the bindings find their client there).
type callCtx struct {
	context.Context                 // the caller's: deadline, cancellation, values
	conn            context.Context // the connection's values
}

// Value looks in the connection's values first, then the caller's.
func (c callCtx) Value(key any) any {
	if v := c.conn.Value(key); v != nil {
		return v
	}
	return c.Context.Value(key)
}

// Close releases the connection (stopping a service rehome started),
// once the sweep of leftovers New began has ended.
func (e *Engine) Close() error {
	e.stopBackground()
	if e.swept != nil {
		e.stopSweep()
		select {
		case <-e.swept:
		case <-time.After(sweepWait):
		}
	}
	e.mu.Lock()
	c := e.conn
	e.mu.Unlock()
	return c.Close()
}

// Host returns what the service reported about itself.
func (e *Engine) Host() Host {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.host
}

// Image returns the image reference runs use.
func (e *Engine) Image() string { return e.image }

// Enforcement says which ceilings the service can hold through cgroups:
// rootful Podman holds all three; rootless Podman holds those that systemd
// delegated to the user on cgroup v2, and none on cgroup v1 (it ignores
// --memory and --pids-limit there with a warning).
func (e *Engine) Enforcement() Enforcement {
	h := e.Host()
	if !h.Rootless {
		return Enforcement{Memory: true, Pids: true, CPU: true}
	}
	if h.CgroupVersion != "v2" {
		return Enforcement{}
	}
	has := func(c string) bool {
		for _, x := range h.Controllers {
			if x == c {
				return true
			}
		}
		return false
	}
	return Enforcement{Memory: has("memory"), Pids: has("pids"), CPU: has("cpu")}
}

// skipUserStorage reports whether the service found is the user's own
// rootless one on vfs, where native overlay is available to a service of
// rehome's own: then rehome starts that one rather than copy the image for
// every run. A service named with --podman or $CONTAINER_HOST is used as
// it is.
func skipUserStorage(opts link.ConnectOptions, h Host) bool {
	return opts.URI == "" && os.Getenv("CONTAINER_HOST") == "" && !opts.ForceStart && !opts.SharedStorage && !h.ServiceStarted &&
		h.Rootless && h.StorageDriver == "vfs" && link.OverlaySupported()
}
