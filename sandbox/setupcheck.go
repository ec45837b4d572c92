package sandbox

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/containers/podman/v4/pkg/bindings/images"
	"github.com/containers/podman/v4/pkg/bindings/system"
)

// What a machine needs before the first sandbox runs, checked for the
// first-run checklist and `rehome doctor`: the shipped image archive (and
// its checksum), rootless Podman's subordinate ids and socket, and the
// storage driver.

// PackagedImageDir is where the rehome-sandbox-image package puts the
// image archive (named ArchiveName()) and its .sha256.
const PackagedImageDir = "/usr/share/rehome"

// PackagedImageArchive returns the path of this recipe's archive shipped
// by the rehome-sandbox-image package, or "" when it is not installed.
// $REHOME_PACKAGED_IMAGE_DIR replaces PackagedImageDir (tests).
func PackagedImageArchive() string {
	dir := PackagedImageDir
	if d := os.Getenv("REHOME_PACKAGED_IMAGE_DIR"); d != "" {
		dir = d
	}
	p := filepath.Join(dir, ArchiveName())
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		return p
	}
	return ""
}

// LoadProgress receives the progress of an image load: stage "verify"
// (checking the archive's SHA-256) or "load" (sending it to Podman), with
// bytes done of total.
type LoadProgress func(stage string, done, total int64)

type loadProgressKey struct{}

// WithLoadProgress returns a context under which LoadImage reports its
// progress to fn.
func WithLoadProgress(ctx context.Context, fn LoadProgress) context.Context {
	return context.WithValue(ctx, loadProgressKey{}, fn)
}

func loadProgressOf(ctx context.Context) LoadProgress {
	if ctx != nil {
		if fn, ok := ctx.Value(loadProgressKey{}).(LoadProgress); ok && fn != nil {
			return fn
		}
	}
	return func(string, int64, int64) {}
}

// VerifyArchive checks file against the SHA-256 in file+".sha256" (the
// `sha256sum` format: hex digest, then the name). checked is false when
// there is no .sha256 beside it (an archive the user made or carried);
// a mismatch is an error wrapping ErrArchiveDamaged.
func VerifyArchive(ctx context.Context, file string) (checked bool, err error) {
	want, err := readSum(file + ".sha256")
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	f, err := os.Open(file)
	if err != nil {
		return false, fmt.Errorf("open the image archive: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, &countingReader{r: f, ctx: ctx, stage: "verify", total: fi.Size(), fn: loadProgressOf(ctx)}); err != nil {
		return false, fmt.Errorf("read the image archive %s: %w", file, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return true, fmt.Errorf("%w: %s has SHA-256 %s, its .sha256 says %s: reinstall the package that shipped it (`sudo apt-get install --reinstall rehome-sandbox-image`) or copy the archive again", ErrArchiveDamaged, file, got, want)
	}
	return true, nil
}

func readSum(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 || len(fields[0]) != 64 {
		return "", fmt.Errorf("%s does not hold a SHA-256 sum", path)
	}
	if _, err := hex.DecodeString(fields[0]); err != nil {
		return "", fmt.Errorf("%s does not hold a SHA-256 sum", path)
	}
	return strings.ToLower(fields[0]), nil
}

// countingReader reports bytes read, every 4 MiB, and stops when ctx ends.
type countingReader struct {
	r     io.Reader
	ctx   context.Context
	stage string
	done  int64
	total int64
	last  int64
	fn    LoadProgress
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.ctx != nil {
		if err := c.ctx.Err(); err != nil {
			return 0, err
		}
	}
	n, err := c.r.Read(p)
	c.done += int64(n)
	if c.done-c.last >= 4<<20 || (err == io.EOF && c.done != c.last) {
		c.last = c.done
		c.fn(c.stage, c.done, c.total)
	}
	return n, err
}

// StorageDriver asks the Podman service which storage driver it uses
// ("overlay", "vfs", …) and whether it runs rootless.
func (e *Engine) StorageDriver(ctx context.Context) (driver string, rootless bool, err error) {
	info, err := system.Info(e.api(ctx), nil)
	if err != nil {
		return "", false, fmt.Errorf("ask Podman about its storage: %w", explain(err))
	}
	return info.Store.GraphDriverName, info.Host.Security.Rootless, nil
}

// VFSAdvice explains what the vfs driver costs and how to leave it, or ""
// when driver is not vfs or the service is rootful (root's storage is the
// administrator's choice).
func VFSAdvice(driver string, rootless bool) string {
	if driver != "vfs" || !rootless {
		return ""
	}
	if !OverlaySupported() {
		return "rootless Podman uses the vfs storage driver, so each sandbox copies the whole image (seconds per run); this kernel (" + kernelRelease() + ") is older than 5.13, so native overlay is not available to rootless Podman: install fuse-overlayfs (`sudo apt-get install fuse-overlayfs`) and reset Podman's storage (`podman system reset`)"
	}
	return "rootless Podman uses the vfs storage driver, so each sandbox copies the whole image (about 8 s a run instead of 0.4 s); switch to overlay (" + StorageConfPath() + " choosing `overlay`; it resets your Podman storage — your containers and images are removed — and rehome loads its image again)"
}

// OverlaySupported reports whether the kernel lets rootless Podman use
// native overlay (Linux 5.13 or newer).
func OverlaySupported() bool {
	major, minor := kernelVersion()
	return major > 5 || (major == 5 && minor >= 13)
}

func kernelVersion() (major, minor int) {
	parts := strings.SplitN(kernelRelease(), ".", 3)
	if len(parts) < 2 {
		return 0, 0
	}
	major, _ = strconv.Atoi(parts[0])
	minor, _ = strconv.Atoi(strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	return major, minor
}

// StorageConfPath is the user's containers-storage.conf.
func StorageConfPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "containers", "storage.conf")
}

// OverlayStorageConf is the storage.conf that makes rootless Podman use the
// kernel's overlay (5.13+).
const OverlayStorageConf = "# Written by rehome: rootless Podman with the kernel's native overlay\n# (Linux 5.13+) instead of vfs, which copies the whole image for every container.\n[storage]\ndriver = \"overlay\"\n"

// SwitchToOverlay resets the user's rootless Podman storage (`podman system
// reset --force`: every container and image of this user is removed) and
// writes a storage.conf choosing overlay. An existing storage.conf is kept
// as storage.conf.rehome-old. The caller closes its engine first and loads
// the image again after. It refuses as root and on kernels before 5.13.
func SwitchToOverlay(ctx context.Context) (string, error) {
	if os.Geteuid() == 0 {
		return "", errors.New("the storage switch is for rootless Podman; root's storage is left to the administrator")
	}
	if !OverlaySupported() {
		return "", fmt.Errorf("kernel %s is older than 5.13: rootless native overlay needs 5.13; install fuse-overlayfs instead", kernelRelease())
	}
	conf := StorageConfPath()
	if err := os.MkdirAll(filepath.Dir(conf), 0o755); err != nil {
		return "", err
	}
	if _, err := os.Stat(conf); err == nil {
		if err := os.Rename(conf, conf+".rehome-old"); err != nil {
			return "", err
		}
	}
	// Reset with the new driver configured: podman removes the old vfs
	// store whatever the configured driver is.
	if err := os.WriteFile(conf, []byte(OverlayStorageConf), 0o644); err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, "podman", "system", "reset", "--force").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("podman system reset: %v: %s", err, strings.TrimSpace(string(out)))
	}
	// The user's socket-activated service, if any, must start over.
	_ = exec.CommandContext(ctx, "systemctl", "--user", "stop", "podman.service").Run()
	return conf, nil
}

// RootlessCheck is what rootless Podman needs from the system for the
// user running rehome.
type RootlessCheck struct {
	User string `json:"user"`
	// Root: rehome runs as root (rootful Podman; the rest does not apply).
	Root bool `json:"root"`
	// SubIDs: the user has subordinate uid and gid ranges.
	SubUIDs bool `json:"subuids"`
	SubGIDs bool `json:"subgids"`
	// NewUIDMap: newuidmap/newgidmap (package uidmap) are installed.
	NewUIDMap bool `json:"newuidmap"`
	// Socket: the user's podman.socket is listening, so each command does
	// not start a private service; SocketPath is where.
	Socket     bool   `json:"socket"`
	SocketPath string `json:"socket_path"`
	// Systemd: a systemd user manager answers (the socket can be enabled).
	Systemd bool `json:"systemd"`
	// FixIDs and FixSocket are the commands that fix what is missing.
	FixIDs    string `json:"fix_ids,omitempty"`
	FixSocket string `json:"fix_socket,omitempty"`
}

// CheckRootless looks at /etc/subuid, /etc/subgid, newuidmap and the
// user's Podman socket.
func CheckRootless() RootlessCheck {
	c := RootlessCheck{Root: os.Geteuid() == 0}
	u, err := user.Current()
	if err == nil {
		c.User = u.Username
	}
	if c.Root {
		return c
	}
	c.SubUIDs = hasSubID("/etc/subuid", c.User, os.Getuid())
	c.SubGIDs = hasSubID("/etc/subgid", c.User, os.Getuid())
	_, err1 := exec.LookPath("newuidmap")
	_, err2 := exec.LookPath("newgidmap")
	c.NewUIDMap = err1 == nil && err2 == nil
	if !c.SubUIDs || !c.SubGIDs || !c.NewUIDMap {
		c.FixIDs = fmt.Sprintf("sudo apt-get install uidmap && sudo usermod --add-subuids 100000-165535 --add-subgids 100000-165535 %s", c.User)
	}
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		c.SocketPath = filepath.Join(rt, "podman", "podman.sock")
		if fi, err := os.Stat(c.SocketPath); err == nil && fi.Mode()&os.ModeSocket != 0 {
			c.Socket = true
		}
	}
	c.Systemd = exec.Command("systemctl", "--user", "is-system-running").Run() == nil ||
		exec.Command("systemctl", "--user", "show-environment").Run() == nil
	if !c.Socket {
		c.FixSocket = "systemctl --user enable --now podman.socket"
	}
	return c
}

// EnableSocket enables and starts the user's podman.socket.
func EnableSocket(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "systemctl", "--user", "enable", "--now", "podman.socket").CombinedOutput()
	if err != nil {
		return fmt.Errorf("systemctl --user enable --now podman.socket: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// hasSubID reports whether file (/etc/subuid or /etc/subgid) grants the
// user (by name or uid) a range of at least 65536 ids.
func hasSubID(file, name string, uid int) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.Split(strings.TrimSpace(sc.Text()), ":")
		if len(parts) != 3 || (parts[0] != name && parts[0] != strconv.Itoa(uid)) {
			continue
		}
		if n, err := strconv.Atoi(parts[2]); err == nil && n >= 65536 {
			return true
		}
	}
	return false
}

// loadReader wraps an archive being loaded so that LoadImage reports its
// progress (stage "load") to the context's LoadProgress.
func loadReader(ctx context.Context, f *os.File) io.Reader {
	var total int64
	if fi, err := f.Stat(); err == nil {
		total = fi.Size()
	}
	return &countingReader{r: f, ctx: ctx, stage: "load", total: total, fn: loadProgressOf(ctx)}
}

// LoadPackagedImage loads the archive shipped by the rehome-sandbox-image
// package when the image is not in Podman's storage yet (first start),
// checking its SHA-256; progress comes through WithLoadProgress. loaded is
// false when there was nothing to do.
func (e *Engine) LoadPackagedImage(ctx context.Context) (loaded bool, err error) {
	archive := PackagedImageArchive()
	if archive == "" || e.opts.Image != "" {
		return false, nil
	}
	if ok, err := images.Exists(e.api(ctx), e.image, nil); err != nil || ok {
		return false, nil // present, or the run reports the error
	}
	if _, err := e.LoadImage(ctx, archive); err != nil {
		return false, err
	}
	return true, nil
}
