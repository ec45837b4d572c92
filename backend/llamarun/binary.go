package llamarun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Backends a build runs on.
const (
	BackendCPU    = "cpu"
	BackendVulkan = "vulkan"
)

// Runtime is the llama-server build rehome runs, and why that one.
type Runtime struct {
	Path    string `json:"path"`
	Backend string `json:"backend"`
	// Devices are the Vulkan devices the build saw ("Vulkan0: NVIDIA
	// GeForce RTX 3090 (24576 MiB, 23000 MiB free)").
	Devices []string `json:"devices,omitempty"`
	Why     string   `json:"why"`
}

// Dirs are the folders searched for the builds, in order: $REHOME_LLAMA_DIR,
// beside the rehome binary's lib folder (a tarball or /usr), and the
// package's /usr/lib/rehome. After them, the build cache of `make llama`
// (CacheDir).
func Dirs() []string {
	var dirs []string
	if d := os.Getenv("REHOME_LLAMA_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Join(filepath.Dir(exe), "..", "lib", "rehome"), filepath.Dir(exe))
	}
	return append(dirs, "/usr/lib/rehome")
}

// find returns the first executable called name: $env, else in Dirs,
// else the newest build `make llama` left in the build cache.
func find(env, name string) string {
	if p := os.Getenv(env); p != "" {
		return p
	}
	for _, d := range Dirs() {
		if p := filepath.Join(d, name); executable(p) {
			return p
		}
	}
	return cached(name)
}

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// CacheDir is where build/llm/llama-server.sh (`make llama`) keeps its
// builds: $REHOME_CACHE, else /var/cache/rehome.
func CacheDir() string {
	if d := os.Getenv("REHOME_CACHE"); d != "" {
		return d
	}
	return "/var/cache/rehome"
}

// cached returns the newest build called name in CacheDir: the script
// keeps each as <name>-<commit>-<key>/llama-server, so that `make run`
// from a clone runs a carried model with the server `make llama` built.
func cached(name string) string {
	dirs, _ := filepath.Glob(filepath.Join(CacheDir(), name+"-*"))
	best, newest := "", time.Time{}
	for _, d := range dirs {
		rest := strings.TrimPrefix(filepath.Base(d), name+"-")
		if name == "llama-server" && strings.HasPrefix(rest, "vulkan-") {
			continue // the Vulkan build's folder, not the CPU one's
		}
		p := filepath.Join(d, "llama-server")
		if st, err := os.Stat(p); err == nil && executable(p) && st.ModTime().After(newest) {
			best, newest = p, st.ModTime()
		}
	}
	return best
}

// Find picks the runtime: the Vulkan build when it lists a Vulkan device
// (ggml leaves CPU-type devices such as Mesa's lavapipe out unless
// GGML_VK_VISIBLE_DEVICES names them), else the CPU build.
func Find(ctx context.Context) (Runtime, error) {
	cpu := find("REHOME_LLAMA_SERVER", "llama-server")
	vk := find("REHOME_LLAMA_SERVER_VULKAN", "llama-server-vulkan")
	if cpu == "" && vk == "" {
		return Runtime{}, fmt.Errorf("%w: rehome's package installs it in /usr/lib/rehome (or set REHOME_LLAMA_DIR to the folder holding llama-server); from a clone, `make llama` builds it into "+CacheDir()+", where rehome finds it", ErrNoRuntime)
	}
	why := ""
	if vk != "" {
		devs, err := ListDevices(ctx, vk)
		switch {
		case err != nil:
			why = fmt.Sprintf("the Vulkan build could not list devices (%v)", err)
		case len(devs) == 0:
			why = "the Vulkan build sees no Vulkan GPU (no driver, or only a CPU-type device)"
		default:
			return Runtime{Path: vk, Backend: BackendVulkan, Devices: devs, Why: "a Vulkan GPU is present: " + strings.Join(devs, "; ")}, nil
		}
	} else {
		why = "no Vulkan build is installed"
	}
	if cpu == "" {
		return Runtime{}, fmt.Errorf("%w: only the Vulkan build is installed, and %s", ErrNoRuntime, why)
	}
	return Runtime{Path: cpu, Backend: BackendCPU, Why: why + ": running on the CPU"}, nil
}

// ListDevices asks a build which devices it would use
// (`llama-server --list-devices`), within ten seconds.
func ListDevices(ctx context.Context, bin string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--list-devices")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, lastLine(out.String()))
	}
	var devs []string
	started := false
	for _, l := range strings.Split(out.String(), "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "Available devices"):
			started = true
		case started && t != "" && strings.Contains(t, ":"):
			devs = append(devs, t)
		}
	}
	return devs, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
