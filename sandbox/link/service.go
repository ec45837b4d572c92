package link

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// startService runs `podman system service` on a socket in a private
// folder, which is also its working directory: conmon drops files such as
// "oom" into its working directory on cgroup v1, and they must land
// nowhere the user cares about.
func startService(ctx context.Context, opts ConnectOptions) (*Connection, error) {
	bin := opts.PodmanPath
	if bin == "" {
		bin = "podman"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrPodmanMissing, InstallHint())
	}
	// The runtime is named, never left to the service's default, so that
	// rehome knows which one runs its sandboxes.
	rt := opts.Runtime
	if rt == "" {
		for _, cand := range PrivateRuntimes {
			if _, err := exec.LookPath(cand); err == nil {
				rt = cand
				break
			}
		}
	}
	if opts.Linger > 0 {
		name := rt
		if os.Geteuid() != 0 && !opts.SharedStorage {
			// Not the folder of a service on the user's storage (an
			// older rehome's, still idling).
			name += "-own"
		}
		if dir, ok := lingerDir(opts.LingerBase, name); ok {
			return lingeringService(ctx, opts, path, rt, dir)
		}
	}
	dir, err := os.MkdirTemp("", "rehome-podman-")
	if err != nil {
		return nil, fmt.Errorf("create a folder for the Podman service: %w", err)
	}
	return runService(ctx, opts, path, rt, dir, false)
}

// lingerDir is the private folder of a lingering service with runtime rt:
// base/podman-<rt>, base being by default /run/rehome for root and
// $XDG_RUNTIME_DIR/rehome otherwise — or none when there is no such
// runtime folder.
func lingerDir(base, rt string) (string, bool) {
	switch {
	case base != "":
	case os.Geteuid() == 0:
		base = "/run/rehome"
	default:
		x := os.Getenv("XDG_RUNTIME_DIR")
		if x == "" {
			return "", false
		}
		base = filepath.Join(x, "rehome")
	}
	name := "podman-" + rt
	if rt == "" {
		name = "podman"
	}
	dir, err := privateDirIn(base, name)
	return dir, err == nil
}

// privateDirIn makes base/name (each 0700) and checks that both are this
// user's private folders that no other user can plant or rename.
func privateDirIn(base, name string) (string, error) {
	dir := filepath.Join(base, name)
	for _, d := range []string{base, dir} {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return "", err
		}
		if err := CheckPrivate(d); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// lingeringService connects to the lingering service in dir, or starts it
// there. A lock on the folder makes commands started together share one.
func lingeringService(ctx context.Context, opts ConnectOptions, path, rt, dir string) (*Connection, error) {
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the Podman service's folder: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return nil, fmt.Errorf("lock the Podman service's folder: %w", err)
	}
	sock := filepath.Join(dir, "podman.sock")
	if _, err := os.Lstat(sock); err == nil {
		if cctx, err := dial(ctx, "unix://"+sock); err == nil {
			storage, _ := privateStorage(opts)
			return &Connection{URI: "unix://" + sock, Started: true, Runtime: rt, Storage: storage, ctx: cctx}, nil
		}
		os.Remove(sock) // a service that idled out or died
	}
	return runService(ctx, opts, path, rt, dir, true)
}

// runService starts `podman system service` on dir/podman.sock, dir being
// also its working directory. A lingering service is its own session and
// ends when idle for opts.Linger; another dies with rehome.
func runService(ctx context.Context, opts ConnectOptions, path, rt, dir string, linger bool) (*Connection, error) {
	sock := filepath.Join(dir, "podman.sock")
	uri := "unix://" + sock
	idle := "--time=0"
	if linger {
		idle = fmt.Sprintf("--time=%d", max(1, int(opts.Linger.Seconds())))
	}
	storage, err := privateStorage(opts)
	if err != nil {
		if !linger {
			os.RemoveAll(dir)
		}
		return nil, err
	}
	args := append(storage.args(), "system", "service", idle, uri)
	if rt != "" {
		args = append([]string{"--runtime", rt}, args...)
	}
	cmd := serviceCommand(path, args, dir, linger)
	logf, err := os.Create(filepath.Join(dir, "service.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		if !linger {
			os.RemoveAll(dir)
		}
		return nil, fmt.Errorf("start `podman system service`: %w", err)
	}
	logf.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	c := &Connection{URI: uri, Started: true, Runtime: rt, Storage: storage, svc: cmd, dir: dir, done: done}
	stop := c.Close
	if linger {
		// Close leaves it running; the next command finds it. Only a start
		// that fails here stops it.
		c.svc, c.dir = nil, ""
		stop = func() error { stopGroup(cmd.Process.Pid, done); os.Remove(sock); return nil }
	}
	if err := awaitService(ctx, c, opts.StartTimeout, sock, dir, linger, stop); err != nil {
		return nil, err
	}
	return c, nil
}

// serviceCommand is the `podman system service` command, run in dir. A
// service is local by definition: variables that would turn this podman
// into a remote client (where --runtime and `system service` do not
// exist) are not passed on. The service dies with rehome, so that no
// orphan keeps the socket; a lingering one is a session of its own that
// ends by itself when idle.
func serviceCommand(path string, args []string, dir string, linger bool) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "CONTAINER_HOST" && k != "CONTAINER_CONNECTION" && k != "CONTAINER_SSHKEY" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
	if linger {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	return cmd
}

// awaitService waits until the started service answers on sock (c's
// connection is then set), within limit (0: 20 s); a service that exits
// or does not answer in time, or a cancelled ctx, is an error, its log's
// tail said, and it is stopped.
func awaitService(ctx context.Context, c *Connection, limit time.Duration, sock, dir string, linger bool, stop func() error) error {
	if limit == 0 {
		limit = 20 * time.Second
	}
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-c.done:
			tail := logTail(filepath.Join(dir, "service.log"))
			if !linger {
				os.RemoveAll(dir)
			}
			return fmt.Errorf("`podman system service` exited at once: %s", tail)
		default:
		}
		if _, err := os.Stat(sock); err == nil {
			if cctx, err := dial(ctx, c.URI); err == nil {
				c.ctx = cctx
				return nil
			}
		}
		if time.Now().After(deadline) {
			tail := logTail(filepath.Join(dir, "service.log"))
			stop()
			return fmt.Errorf("`podman system service` did not answer within %s: %s", limit, tail)
		}
		select {
		case <-ctx.Done():
			stop()
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
}

func logTail(path string) string {
	data, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(data))
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	if s == "" {
		s = "no output"
	}
	return s
}

// stopGroup ends process group pgid (a service rehome started, with
// Setpgid or Setsid, so its leader's pid): SIGTERM, then SIGKILL after 5 s
// for whatever is left; done closes when the leader has been reaped.
func stopGroup(pgid int, done <-chan struct{}) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.Now().Add(5 * time.Second)
	leaderGone := false
	for {
		if !leaderGone {
			select {
			case <-done:
				leaderGone = true
			default:
			}
		}
		if leaderGone && syscall.Kill(-pgid, 0) == syscall.ESRCH {
			return
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-done
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
