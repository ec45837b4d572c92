package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"path"
	"strconv"
	"syscall"
	"time"

	"github.com/containers/podman/v4/pkg/specgen"
	"github.com/containers/storage/pkg/idtools"
	storagetypes "github.com/containers/storage/types"
	spec "github.com/opencontainers/runtime-spec/specs-go"
)

// In-container facts shared with sandbox/recipe/runner.py and prelude.py.
const (
	// containerDataDir is where the input file is and outputs are written, as on
	// ChatGPT.
	containerDataDir = "/mnt/data"
	// sandboxUser is the unprivileged user the code runs as (created in the
	// image by the recipe).
	sandboxUser = "10001:10001"
	// sandboxHostname is the fixed host name inside every sandbox.
	sandboxHostname = "sandbox"

	runnerPath = "/opt/rehome/runner.py"
	// labelSandbox marks every container rehome creates.
	labelSandbox = "io.rehome.sandbox"
	// labelOwner names the process that created it (host/pid/start time),
	// so that a later rehome removes only what a dead process left behind.
	labelOwner = "io.rehome.owner"
	// labelRun carries the run's id.
	labelRun = "io.rehome.run"
	// labelIDBase carries the first host id of a rootful run's user
	// namespace.
	labelIDBase = "io.rehome.idbase"
	// shmSize is the size of /dev/shm.
	shmSize = 16 * MiB
	// killGrace is how long after the timeout conmon kills the container
	// on its own, should rehome itself be gone by then: the time outputs
	// may take to arrive (collectLimit) and a margin.
	killGrace = 65
	// scriptChunk is the size of one base64 argument carrying the script
	// (under the kernel's 128 KiB limit on one argument).
	scriptChunk = 96 << 10
)

// Enforcement is what the Podman service can hold through cgroups for a
// container on this host (rootless Podman on cgroup v1 holds none of them).
type Enforcement struct {
	Memory bool `json:"memory"`
	Pids   bool `json:"pids"`
	CPU    bool `json:"cpu"`
}

// job is one run's parameters that are not limits.
type job struct {
	image  string
	name   string
	labels map[string]string
	// inputSource is the host path Podman bind-mounts (a link in a private
	// folder to the checked file); inputName its name under /mnt/data.
	inputSource string
	inputName   string
	inputDev    uint64
	inputIno    uint64
	// inputOwned: the input is rehome's private copy, handed to the
	// sandbox's user by the mount ("U": the service chowns it to the host
	// uid that user maps to). Never set for the user's own file.
	inputOwned bool
	// more are further inputs beside the first (a session shows several
	// files), each mounted read-only at /mnt/data/<name> like the first.
	more []moreInput
	// sent: the inputs are not mounted but sent over the connection into
	// the running container's /mnt/data (send.go); the runner waits for
	// the go that follows them. inputSize is the first one's size.
	sent      []*input
	inputSize int64
	// idBase, when not 0, gives the run a user namespace of its own: the
	// container's ids 0…idRange-1 are host ids idBase… (rootful Podman;
	// a rootless service's containers are in the user's namespace already).
	idBase  uint32
	script  []byte
	cgroups Enforcement
	// nprocHard is the hard RLIMIT_NPROC of the Podman service, the most a
	// container may be given without CAP_SYS_RESOURCE.
	nprocHard uint64
	// hardKillOnly leaves the timeout to the kill from outside alone (no
	// runner deadline just before it).
	hardKillOnly bool
}

// moreInput is an input file beyond the first, as the job mounts it.
type moreInput struct {
	source, name string
	dev, ino     uint64
	size         int64
	owned        bool
}

// inputCheck names an input for the runner: it checks the file is the one
// the host checked, and leaves it out of the outputs.
type inputCheck struct {
	Name string `json:"name"`
	Dev  uint64 `json:"dev"`
	Ino  uint64 `json:"ino"`
	// Size is a sent input's size (it has no host inode to check).
	Size int64 `json:"size,omitempty"`
}

// runnerConfig is the runner's CONFIG argument.
type runnerConfig struct {
	Input    string `json:"input,omitempty"`
	InputDev uint64 `json:"input_dev,omitempty"`
	InputIno uint64 `json:"input_ino,omitempty"`
	// InputSize is a sent input's size; AwaitMS, when set, makes the
	// runner wait that long for the go that follows sent inputs.
	InputSize int64 `json:"input_size,omitempty"`
	AwaitMS   int64 `json:"await_ms,omitempty"`
	// Inputs are the inputs beyond the first.
	Inputs         []inputCheck `json:"inputs,omitempty"`
	StdoutMax      int64        `json:"stdout_max"`
	StderrMax      int64        `json:"stderr_max"`
	FilesMax       int          `json:"files_max"`
	FilesBytesMax  int64        `json:"files_bytes_max"`
	MemoryWatchdog int64        `json:"memory_watchdog,omitempty"`
	DeadlineMS     int64        `json:"deadline_ms,omitempty"`
	Threads        int          `json:"threads"`
}

// runnerDeadline is when the runner kills the code itself, counted from
// its own start: a little before the limit, so that outputs made before it
// come back. The kill from outside at the limit stays the guarantee.
func runnerDeadline(timeout time.Duration) time.Duration {
	return timeout - min(500*time.Millisecond, timeout/10)
}

// command returns the container's argv: the runner, its config, and the
// script in base64 pieces.
func command(lim Limits, j job) []string {
	rc := runnerConfig{
		Input:         j.inputName,
		InputDev:      j.inputDev,
		InputIno:      j.inputIno,
		StdoutMax:     lim.StdoutMax,
		StderrMax:     lim.StderrMax,
		FilesMax:      lim.OutputFiles,
		FilesBytesMax: lim.OutputBytes,
		Threads:       max(1, int(math.Ceil(lim.CPUs))),
	}
	for _, m := range j.more {
		rc.Inputs = append(rc.Inputs, inputCheck{Name: m.name, Dev: m.dev, Ino: m.ino, Size: m.size})
	}
	if len(j.sent) > 0 {
		rc.InputSize = j.inputSize
		rc.AwaitMS = (sendLimit + sendGrace).Milliseconds()
	}
	if !j.cgroups.Memory {
		rc.MemoryWatchdog = lim.Memory
	}
	if !j.hardKillOnly {
		rc.DeadlineMS = runnerDeadline(lim.Timeout).Milliseconds()
	}
	cfg, _ := json.Marshal(rc)
	argv := []string{"/usr/bin/python3", "-I", "-S", "-B", runnerPath, base64.StdEncoding.EncodeToString(cfg)}
	for s := j.script; ; s = s[min(len(s), scriptChunk):] {
		argv = append(argv, base64.StdEncoding.EncodeToString(s[:min(len(s), scriptChunk)]))
		if len(s) <= scriptChunk {
			break
		}
	}
	return argv
}

// buildSpec turns limits and a job into the hardened container spec. It is
// pure: every field it sets is checked by spec_test.go, and the real-Podman
// tests check that the service honours them.
func buildSpec(lim Limits, j job) *specgen.SpecGenerator {
	s := specgen.NewSpecGenerator(j.image, false)
	s.Name = j.name
	s.Labels = j.labels
	s.Entrypoint = []string{}
	s.Command = command(lim, j)
	s.WorkDir = containerDataDir

	// A clean environment: nothing of the host's (nor of the service's
	// proxy settings) reaches the code; the runner gives the code its own.
	s.Env = map[string]string{"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp"}
	s.EnvHost = false
	s.HTTPProxy = false
	s.Terminal = false
	s.Stdin = false

	// The process is reaped, killed and removed by rehome; conmon kills it
	// on its own killGrace seconds after the timeout should rehome die.
	s.Remove = true
	s.Timeout = uint(math.Ceil(lim.Timeout.Seconds())) + killGrace
	if len(j.sent) > 0 {
		// The clock starts at the container's start, before its files
		// arrive.
		s.Timeout += uint((sendLimit + sendGrace).Seconds())
	}
	zero := uint(0)
	s.StopTimeout = &zero
	s.StopSignal = ptr(syscall.SIGKILL)
	// Output travels through the attach stream only; no log file grows on
	// the host however much the code prints.
	s.LogConfiguration = &specgen.LogConfig{Driver: "none"}

	isolate(s, j)

	// Privileges: none.
	s.Privileged = false
	s.CapDrop = []string{"all"}
	s.NoNewPrivileges = true
	// The image's own profile (seccomp.go): the spec names no file of
	// this machine, and the profile holds on any machine's service.
	s.SeccompPolicy = seccompPolicy
	s.Umask = "0022"

	// File system: a read-only root, sized in-memory /tmp and /mnt/data,
	// and the input files, read-only. Nothing else from the host.
	s.ReadOnlyFilesystem = true
	s.ReadWriteTmpfs = false
	s.ImageVolumeMode = "ignore"
	shm := shmSize
	s.ShmSize = &shm
	s.Mounts = mounts(lim, j)

	// Resource ceilings: cgroups where the service can hold them; rlimits
	// always (explicit, so the service does not try to raise nofile and
	// nproc past what it may without CAP_SYS_RESOURCE).
	s.ResourceLimits = resources(lim, j)
	s.Rlimits = rlimits(lim, j)
	return s
}

// isolate gives the container its own identity and namespaces: no
// network, a user of its own, and none of the host's facts.
func isolate(s *specgen.SpecGenerator, j job) {
	s.Hostname = sandboxHostname
	s.UtsNS = specgen.Namespace{NSMode: specgen.Private}
	s.PidNS = specgen.Namespace{NSMode: specgen.Private}
	s.IpcNS = specgen.Namespace{NSMode: specgen.Private}
	s.NetNS = specgen.Namespace{NSMode: specgen.NoNetwork}
	s.User = sandboxUser
	if j.idBase != 0 {
		s.UserNS = specgen.Namespace{NSMode: specgen.Private}
		m := []idtools.IDMap{{ContainerID: 0, HostID: int(j.idBase), Size: idRange}}
		s.IDMappings = &storagetypes.IDMappingOptions{UIDMap: m, GIDMap: m}
	}
	// No host facts: /etc/hosts and /etc/resolv.conf are the image's
	// (localhost and the sandbox's own name; no resolver), not generated
	// from the host's.
	s.UseImageHosts = true
	s.UseImageResolvConf = true
	// Nor the host's kernel command line and boot id (both name this very
	// machine and boot, the same in every run); and where no cgroup holds a
	// ceiling (rootless on cgroup v1) the container would see the host's
	// whole cgroup tree: other users' containers (libpod_parent/libpod-…),
	// the host's own memory figures (reported as the run's peak).
	s.Mask = []string{"/proc/cmdline", "/proc/sys/kernel/random/boot_id"}
	if j.cgroups == (Enforcement{}) {
		s.Mask = append(s.Mask, "/sys/fs/cgroup")
	}
}

// mounts are the container's file system beside its read-only root:
// sized in-memory /tmp and /mnt/data, and the input files, read-only
// (none where they are sent to a team host instead).
func mounts(lim Limits, j job) []spec.Mount {
	ms := []spec.Mount{
		{
			Type:        "tmpfs",
			Source:      "tmpfs",
			Destination: "/tmp",
			Options:     []string{"rw", "nosuid", "nodev", "noexec", "size=" + strconv.FormatInt(lim.TmpSize, 10), "mode=1777"},
		},
		{
			Type:        "tmpfs",
			Source:      "tmpfs",
			Destination: containerDataDir,
			Options:     []string{"rw", "nosuid", "nodev", "noexec", "size=" + strconv.FormatInt(lim.OutputBytes+sentBytes(j.sent), 10), "mode=0755", "U"},
		},
	}
	if len(j.sent) > 0 {
		return ms
	}
	if j.inputName != "" {
		ms = append(ms, inputMount(j.inputSource, j.inputName, j.inputOwned))
	}
	for _, m := range j.more {
		ms = append(ms, inputMount(m.source, m.name, m.owned))
	}
	return ms
}

// inputMount binds an input file read-only at /mnt/data/name (owned: its
// owner mapped to the sandbox's user).
func inputMount(source, name string, owned bool) spec.Mount {
	opts := []string{"ro", "nosuid", "nodev", "noexec", "rprivate"}
	if owned {
		opts = append(opts, "U")
	}
	return spec.Mount{Type: "bind", Source: source, Destination: path.Join(containerDataDir, name), Options: opts}
}

// resources are the cgroup ceilings the service can hold (nil: none).
func resources(lim Limits, j job) *spec.LinuxResources {
	res := &spec.LinuxResources{}
	if j.cgroups.Memory {
		mem, swap := lim.Memory, lim.Memory // no swap: memory+swap = memory
		res.Memory = &spec.LinuxMemory{Limit: &mem, Swap: &swap}
	}
	if j.cgroups.Pids {
		res.Pids = &spec.LinuxPids{Limit: lim.Pids}
	}
	if j.cgroups.CPU {
		period := uint64(100000)
		quota := int64(math.Ceil(lim.CPUs * float64(period)))
		res.CPU = &spec.LinuxCPU{Period: &period, Quota: &quota}
	}
	if res.Memory == nil && res.Pids == nil && res.CPU == nil {
		return nil
	}
	return res
}

// rlimits are the per-process limits of the container. Podman names them
// like `--ulimit` does ("nofile"; it adds the RLIMIT_ prefix itself). Where cgroups hold
// memory, pids and CPU they are a second line; where they cannot, they are
// the line (RLIMIT_DATA per process, RLIMIT_NPROC for the sandbox user,
// RLIMIT_CPU), with the runner's memory watchdog over the whole container.
func rlimits(lim Limits, j job) []spec.POSIXRlimit {
	fsize := uint64(max(lim.OutputBytes, lim.TmpSize))
	nproc := uint64(4096)
	if !j.cgroups.Pids {
		nproc = uint64(lim.Pids)
	}
	if j.nprocHard > 0 && nproc > j.nprocHard {
		nproc = j.nprocHard
	}
	r := []spec.POSIXRlimit{
		{Type: "nofile", Hard: 1024, Soft: 1024},
		{Type: "nproc", Hard: nproc, Soft: nproc},
		{Type: "fsize", Hard: fsize, Soft: fsize},
		{Type: "core", Hard: 0, Soft: 0},
		{Type: "memlock", Hard: 64 * uint64(kiB), Soft: 64 * uint64(kiB)},
		{Type: "msgqueue", Hard: 0, Soft: 0},
	}
	if !j.cgroups.Memory {
		data := uint64(lim.Memory)
		r = append(r, spec.POSIXRlimit{Type: "data", Hard: data, Soft: data})
	}
	if !j.cgroups.CPU {
		// CPU seconds one process may burn: the whole timeout at the quota.
		cpu := uint64(math.Ceil(lim.Timeout.Seconds()*lim.CPUs)) + 1
		r = append(r, spec.POSIXRlimit{Type: "cpu", Hard: cpu, Soft: cpu})
	}
	return r
}

func ptr[T any](v T) *T { return &v }
