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

	"rehome/sandbox/link"
)

// What a machine needs before the first sandbox runs, checked for the
// first-run checklist and `rehome doctor`: the shipped image archive (and
// its checksum), rootless Podman's subordinate ids and socket, and the
// storage driver.

// packagedImageDir is where the rehome-sandbox-image package puts the
// image archive (named ArchiveName()) and its .sha256.
const packagedImageDir = "/usr/share/rehome"

// PackagedImageArchive returns the path of this recipe's archive shipped
// by the rehome-sandbox-image package, or "" when it is not installed.
// $REHOME_PACKAGED_IMAGE_DIR replaces packagedImageDir (tests).
func PackagedImageArchive() string {
	dir := packagedImageDir
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

// verifyArchive checks file against the SHA-256 in file+".sha256" (the
// `sha256sum` format: hex digest, then the name). checked is false when
// there is no .sha256 beside it (an archive the user made or carried);
// a mismatch is an error wrapping errArchiveDamaged.
func verifyArchive(ctx context.Context, file string) (checked bool, err error) {
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
		return true, fmt.Errorf("%w: %s has SHA-256 %s, its .sha256 says %s: reinstall the package that shipped it (`sudo apt-get install --reinstall rehome-sandbox-image`) or copy the archive again", errArchiveDamaged, file, got, want)
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

// StorageFinding says where the Podman service rehome uses keeps its
// images and what that costs a run: State "ok" or "warn", and Detail in
// the user's words. It never suggests resetting the user's own storage.
type StorageFinding struct {
	State  string `json:"state"`
	Detail string `json:"detail"`
	// Driver is the service's storage driver; GraphRoot where it keeps
	// images.
	Driver    string `json:"driver"`
	GraphRoot string `json:"graph_root"`
	// Own: the service is rehome's own, with its own storage.
	Own bool `json:"own"`
}

// StorageFinding asks the service about its storage (see StorageFinding).
func (e *Engine) StorageFinding(ctx context.Context) (StorageFinding, error) {
	info, err := system.Info(e.api(ctx), nil)
	if err != nil {
		return StorageFinding{}, fmt.Errorf("ask Podman about its storage: %w", explain(err))
	}
	h := e.Host()
	f := StorageFinding{State: "ok"}
	if info.Store != nil {
		f.Driver, f.GraphRoot = info.Store.GraphDriverName, info.Store.GraphRoot
	}
	f.Own = h.ServiceStarted && h.Storage.GraphRoot != ""
	copies := "each sandbox copies the whole image (about 0.5 GB, seconds to a minute a run)"
	switch {
	case !info.Host.Security.Rootless:
		f.Detail = "Podman (rootful) stores images with " + f.Driver + " in " + f.GraphRoot
		if f.Driver == "vfs" {
			f.State = "warn"
			f.Detail += ": " + copies + "; root's storage is the administrator's choice"
		}
	case f.Own && f.Driver != "vfs":
		f.Detail = "rehome's own Podman service keeps its images in " + f.GraphRoot + " with " + f.Driver + " (a run copies nothing); your own Podman storage is not touched"
	case f.Own:
		f.State = "warn"
		f.Detail = "rehome's own Podman service keeps its images in " + f.GraphRoot + " with vfs, since this kernel (" + link.KernelRelease() + ") is older than 5.13 and has no native overlay for normal users: " + copies +
			"; install fuse-overlayfs (`sudo apt-get install fuse-overlayfs`) and remove rehome's storage (`rm -rf " + shellQuote(f.GraphRoot) + "`: only rehome's image is there) so that rehome sets it up again with it; your own Podman storage is not touched"
	case f.Driver == "vfs":
		f.State = "warn"
		f.Detail = "your Podman service at " + h.ServiceURI + " serves rehome and stores images with vfs in " + f.GraphRoot + ": " + copies +
			"; rehome does not change your storage. Without --podman (or $CONTAINER_HOST) rehome starts its own service with overlay storage where the kernel allows it (5.13+; this one is " + link.KernelRelease() + ")"
	default:
		f.Detail = "your Podman service at " + h.ServiceURI + " serves rehome and stores images with " + f.Driver + " in " + f.GraphRoot + " (a run copies nothing)"
	}
	return f, nil
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
