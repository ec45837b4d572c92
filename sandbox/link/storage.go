package link

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// A rootless Podman service that rehome starts keeps its own storage: its
// own graph root (images, containers, libpod's database), run root and
// temporary folder, and the kernel's native overlay driver where the
// kernel allows it to rootless users (Linux 5.13+). The user's own Podman
// storage — often vfs, which copies the whole image for every container —
// is left untouched: rehome never resets it. The image is loaded into the
// private storage from the cached or shipped archive on first use (see
// EnsureImage). Root's services use root's storage, as before.

// storageRoot is the graph root of the Podman services rehome starts as
// a normal user: $REHOME_PODMAN_STORAGE, else $XDG_DATA_HOME/rehome/podman
// or ~/.local/share/rehome/podman. One per user, shared by every data
// folder, so the image is loaded once.
func storageRoot() string {
	if d := os.Getenv("REHOME_PODMAN_STORAGE"); d != "" {
		return d
	}
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "rehome", "podman")
}

// PrivateStorage says how a service rehome starts keeps its images.
type PrivateStorage struct {
	// GraphRoot holds the images and containers ("" for root: root's
	// own storage is used).
	GraphRoot string `json:"graph_root,omitempty"`
	// RunRoot and TmpDir are its volatile state, under volatileBase.
	RunRoot string `json:"run_root,omitempty"`
	TmpDir  string `json:"tmp_dir,omitempty"`
	// Driver is the storage driver asked for: "overlay" (native, 5.13+),
	// or "" to let Podman choose for the fresh graph root
	// (fuse-overlayfs where installed, else vfs).
	Driver string `json:"driver,omitempty"`
}

// privateStorage returns the storage of a service rehome starts, making
// its folders (each private to this user). Root gets the zero value.
func privateStorage(opts ConnectOptions) (PrivateStorage, error) {
	if os.Geteuid() == 0 || opts.SharedStorage {
		return PrivateStorage{}, nil
	}
	s := PrivateStorage{GraphRoot: opts.StorageRoot}
	if s.GraphRoot == "" {
		s.GraphRoot = storageRoot()
	}
	if OverlaySupported() {
		s.Driver = "overlay"
	}
	if err := os.MkdirAll(filepath.Dir(s.GraphRoot), 0o700); err != nil {
		return s, fmt.Errorf("create the folder of rehome's Podman storage: %w", err)
	}
	if err := os.Mkdir(s.GraphRoot, 0o700); err != nil && !os.IsExist(err) {
		return s, fmt.Errorf("create rehome's Podman storage: %w", err)
	}
	// The volatile part (containers/storage's mount counts, libpod's
	// "alive" mark) must stay at one path for the graph root's life:
	// libpod's database records it and refuses to start elsewhere
	// ("database configuration mismatch"), and $XDG_RUNTIME_DIR is set in
	// a login session but not under ssh without logind, runuser or cron.
	// So: under /tmp/rehome-<uid>, emptied at boot as a run root must be, and
	// Podman's own choice for a user with no runtime folder. Another user
	// who plants it makes the start fail (privateDirIn), never take over.
	// One such folder per graph root: containers/storage keeps the graph
	// root's mount counts in its run root, which two graph roots must not
	// share.
	sum := sha256.Sum256([]byte(s.GraphRoot))
	vol, err := privateDirIn(volatileBase(), "storage-"+hex.EncodeToString(sum[:6]))
	if err != nil {
		return s, fmt.Errorf("create the run folder of rehome's Podman storage: %w", err)
	}
	run, err := privateDirIn(vol, "run")
	if err != nil {
		return s, fmt.Errorf("create the run folder of rehome's Podman storage: %w", err)
	}
	tmp, err := privateDirIn(vol, "tmp")
	if err != nil {
		return s, fmt.Errorf("create the temporary folder of rehome's Podman storage: %w", err)
	}
	s.RunRoot, s.TmpDir = run, tmp
	return s, nil
}

// args are the podman global flags that select this storage.
func (s PrivateStorage) args() []string {
	if s.GraphRoot == "" {
		return nil
	}
	a := []string{"--root", s.GraphRoot, "--runroot", s.RunRoot, "--tmpdir", s.TmpDir}
	if s.Driver != "" {
		a = append(a, "--storage-driver", s.Driver)
	}
	return a
}

// volatileBase holds the private storages' run roots and temporary
// folders, storage-<hash of the graph root>/{run,tmp}: /tmp/rehome-<uid>
// (not $TMPDIR, which may change between sessions).
func volatileBase() string { return fmt.Sprintf("/tmp/rehome-%d", os.Getuid()) }
