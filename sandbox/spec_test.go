package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/containers/podman/v4/pkg/specgen"
	"github.com/containers/storage/pkg/idtools"
)

func testJob(cg Enforcement) job {
	return job{
		image:       "localhost/rehome-sandbox:test",
		name:        "rehome-run-x",
		labels:      map[string]string{labelSandbox: "1"},
		inputSource: "/tmp/rehome-run-1/input",
		inputName:   "sales data.csv",
		inputDev:    7,
		inputIno:    9,
		script:      []byte("print(1)\n"),
		cgroups:     cg,
		nprocHard:   96364,
		idBase:      1 << 30,
	}
}

func rlimit(s *specgen.SpecGenerator, name string) (uint64, bool) {
	for _, r := range s.Rlimits {
		if r.Type == name {
			if r.Soft != r.Hard {
				return 0, false
			}
			return r.Hard, true
		}
	}
	return 0, false
}

// TestBuildSpecHardening checks every hardening field of the spec, rootful
// (cgroups hold memory, pids and CPU).
func TestBuildSpecHardening(t *testing.T) {
	lim := DefaultLimits
	s := buildSpec(lim, testJob(Enforcement{Memory: true, Pids: true, CPU: true}))

	if s.Image != "localhost/rehome-sandbox:test" || s.Name != "rehome-run-x" {
		t.Errorf("image/name = %q %q", s.Image, s.Name)
	}
	for _, r := range s.Rlimits {
		if strings.HasPrefix(r.Type, "RLIMIT_") {
			t.Errorf("rlimit %s: Podman adds the RLIMIT_ prefix itself", r.Type)
		}
	}
	// Privileges.
	if s.Privileged {
		t.Error("privileged")
	}
	if !slices.Equal(s.CapDrop, []string{"all"}) || len(s.CapAdd) != 0 {
		t.Errorf("caps drop %v add %v", s.CapDrop, s.CapAdd)
	}
	if !s.NoNewPrivileges {
		t.Error("no-new-privileges off")
	}
	if s.User != "10001:10001" || strings.HasPrefix(s.User, "0") || s.User == "root" {
		t.Errorf("user %q", s.User)
	}
	if s.SeccompPolicy != "image" || s.SeccompProfilePath != "" {
		t.Errorf("seccomp: not the image's profile (rehome's): policy %q, path %q", s.SeccompPolicy, s.SeccompProfilePath)
	}
	// A user namespace of the run's own: container ids 0…65535 are host ids
	// from the run's base on, the same for groups.
	if s.UserNS.NSMode != specgen.Private || s.IDMappings == nil {
		t.Fatalf("userns %v %+v", s.UserNS, s.IDMappings)
	}
	for name, m := range map[string][]idtools.IDMap{"uid": s.IDMappings.UIDMap, "gid": s.IDMappings.GIDMap} {
		if len(m) != 1 || m[0].ContainerID != 0 || m[0].HostID != 1<<30 || m[0].Size != 65536 {
			t.Errorf("%s map %+v", name, m)
		}
	}
	if s.IDMappings.HostUIDMapping || s.IDMappings.HostGIDMapping || s.IDMappings.AutoUserNs {
		t.Errorf("id mappings %+v", s.IDMappings)
	}
	// No host facts: the image's /etc/hosts (localhost only) and no
	// resolver configuration; no added hosts, no DNS.
	if !s.UseImageHosts || !s.UseImageResolvConf || len(s.HostAdd) != 0 || len(s.DNSServers) != 0 || len(s.DNSSearch) != 0 || len(s.DNSOptions) != 0 {
		t.Errorf("hosts/resolv.conf: image hosts %t, image resolv.conf %t, add %v, dns %v", s.UseImageHosts, s.UseImageResolvConf, s.HostAdd, s.DNSServers)
	}
	// Nor the kernel command line and boot id; the cgroup tree stays where
	// a cgroup holds the ceilings (rootful).
	if !slices.Equal(s.Mask, []string{"/proc/cmdline", "/proc/sys/kernel/random/boot_id"}) {
		t.Errorf("masked paths %v", s.Mask)
	}
	// Network: none at all.
	if s.NetNS.NSMode != specgen.NoNetwork {
		t.Errorf("netns %v", s.NetNS)
	}
	if len(s.PortMappings) != 0 || len(s.Networks) != 0 {
		t.Error("ports or networks set")
	}
	// Namespaces and identity.
	for name, ns := range map[string]specgen.Namespace{"pid": s.PidNS, "ipc": s.IpcNS, "uts": s.UtsNS} {
		if ns.NSMode != specgen.Private {
			t.Errorf("%s ns %v", name, ns)
		}
	}
	if s.Hostname != "sandbox" {
		t.Errorf("hostname %q", s.Hostname)
	}
	// Environment: clean.
	if s.EnvHost || s.HTTPProxy {
		t.Error("host environment or proxy variables pass in")
	}
	for k := range s.Env {
		if k != "PATH" && k != "LANG" && k != "HOME" {
			t.Errorf("env %s", k)
		}
	}
	if s.Terminal || s.Stdin {
		t.Error("tty or stdin")
	}
	// File system.
	if !s.ReadOnlyFilesystem || s.ReadWriteTmpfs {
		t.Error("root file system not read-only, or extra tmpfs")
	}
	if s.ImageVolumeMode != "ignore" || len(s.Volumes) != 0 || len(s.OverlayVolumes) != 0 || len(s.ImageVolumes) != 0 {
		t.Error("volumes")
	}
	if s.ShmSize == nil || *s.ShmSize != shmSize {
		t.Error("shm size")
	}
	if len(s.Devices) != 0 {
		t.Error("devices")
	}
	mounts := map[string][]string{}
	for _, m := range s.Mounts {
		mounts[m.Destination] = m.Options
		switch m.Type {
		case "tmpfs":
		case "bind":
			if m.Destination != "/mnt/data/sales data.csv" || m.Source != "/tmp/rehome-run-1/input" {
				t.Errorf("bind %s -> %s", m.Source, m.Destination)
			}
			if !slices.Contains(m.Options, "ro") || slices.Contains(m.Options, "rw") {
				t.Errorf("input mount options %v", m.Options)
			}
			// The user's own file is never chowned ("U").
			if slices.Contains(m.Options, "U") {
				t.Errorf("input mount options %v chown the user's file", m.Options)
			}
		default:
			t.Errorf("mount type %s at %s", m.Type, m.Destination)
		}
		if strings.Contains(m.Source, "podman.sock") || strings.Contains(m.Source, "docker.sock") {
			t.Errorf("socket mounted: %s", m.Source)
		}
		for _, o := range []string{"nosuid", "nodev", "noexec"} {
			if !slices.Contains(m.Options, o) {
				t.Errorf("%s lacks %s", m.Destination, o)
			}
		}
	}
	if len(mounts) != 3 {
		t.Errorf("mounts %v", mounts)
	}
	if !slices.Contains(mounts["/tmp"], "size=134217728") {
		t.Errorf("/tmp %v", mounts["/tmp"])
	}
	if !slices.Contains(mounts["/mnt/data"], "size=67108864") {
		t.Errorf("/mnt/data %v", mounts["/mnt/data"])
	}
	// Resources through cgroups.
	r := s.ResourceLimits
	if r == nil || r.Memory == nil || *r.Memory.Limit != 512*MiB || *r.Memory.Swap != 512*MiB {
		t.Fatalf("memory %+v", r)
	}
	if r.Pids == nil || r.Pids.Limit != 128 {
		t.Error("pids")
	}
	if r.CPU == nil || *r.CPU.Quota != 100000 || *r.CPU.Period != 100000 {
		t.Error("cpu")
	}
	// Rlimits: explicit nofile and nproc (no CAP_SYS_RESOURCE needed), no core.
	for name, want := range map[string]uint64{"nofile": 1024, "nproc": 4096, "core": 0, "fsize": uint64(128 * MiB)} {
		if v, ok := rlimit(s, name); !ok || v != want {
			t.Errorf("%s = %d, %t; want %d", name, v, ok, want)
		}
	}
	if _, ok := rlimit(s, "data"); ok {
		t.Error("RLIMIT_DATA set although cgroups hold memory")
	}
	// Kill and cleanup.
	if !s.Remove || s.StopTimeout == nil || *s.StopTimeout != 0 || s.StopSignal == nil || *s.StopSignal != syscall.SIGKILL {
		t.Error("remove/stop settings")
	}
	if s.Timeout != 95 || time.Duration(killGrace)*time.Second <= collectLimit {
		t.Errorf("conmon timeout %d", s.Timeout)
	}
	if s.LogConfiguration == nil || s.LogConfiguration.Driver != "none" {
		t.Error("log driver: output must not grow a file on the host")
	}
	if s.WorkDir != "/mnt/data" {
		t.Errorf("workdir %q", s.WorkDir)
	}
	// Command: the runner, its config, the script.
	if len(s.Command) != 7 || s.Command[4] != runnerPath || len(s.Entrypoint) != 0 {
		t.Fatalf("command %q", s.Command)
	}
	var rc runnerConfig
	raw, _ := base64.StdEncoding.DecodeString(s.Command[5])
	if err := json.Unmarshal(raw, &rc); err != nil {
		t.Fatal(err)
	}
	if rc.Input != "sales data.csv" || rc.InputDev != 7 || rc.InputIno != 9 || rc.MemoryWatchdog != 0 || rc.StdoutMax != MiB || rc.DeadlineMS != 29500 {
		t.Errorf("runner config %+v", rc)
	}
	if src, _ := base64.StdEncoding.DecodeString(s.Command[6]); string(src) != "print(1)\n" {
		t.Errorf("script %q", src)
	}
}

// TestBuildSpecRootlessCgroupV1 checks the fallbacks where no cgroup
// ceiling holds: rlimits and the runner's memory watchdog.
func TestBuildSpecRootlessCgroupV1(t *testing.T) {
	lim := DefaultLimits
	lim.Timeout = 10 * time.Second
	lim.CPUs = 1.5
	s := buildSpec(lim, testJob(Enforcement{}))
	if s.ResourceLimits != nil {
		t.Errorf("cgroup resources asked where they cannot hold: %+v", s.ResourceLimits)
	}
	// The host's cgroup tree (other users' containers) is hidden.
	if !slices.Contains(s.Mask, "/sys/fs/cgroup") {
		t.Errorf("the host's cgroup tree is not masked: %v", s.Mask)
	}
	for name, want := range map[string]uint64{"data": uint64(512 * MiB), "nproc": 128, "cpu": 16} {
		if v, ok := rlimit(s, name); !ok || v != want {
			t.Errorf("%s = %d, %t; want %d", name, v, ok, want)
		}
	}
	var rc runnerConfig
	raw, _ := base64.StdEncoding.DecodeString(s.Command[5])
	json.Unmarshal(raw, &rc)
	if rc.MemoryWatchdog != 512*MiB || rc.Threads != 2 {
		t.Errorf("runner config %+v", rc)
	}
}

func TestRunnerDeadline(t *testing.T) {
	for in, want := range map[time.Duration]time.Duration{30 * time.Second: 29500 * time.Millisecond, 2 * time.Second: 1800 * time.Millisecond, time.Second: 900 * time.Millisecond} {
		if got := runnerDeadline(in); got != want {
			t.Errorf("runnerDeadline(%s) = %s, want %s", in, got, want)
		}
	}
	j := testJob(Enforcement{})
	j.hardKillOnly = true
	var rc runnerConfig
	raw, _ := base64.StdEncoding.DecodeString(command(DefaultLimits, j)[5])
	json.Unmarshal(raw, &rc)
	if rc.DeadlineMS != 0 {
		t.Errorf("hard-kill-only run has a runner deadline of %d ms", rc.DeadlineMS)
	}
}

func TestBuildSpecNoInputAndNprocCeiling(t *testing.T) {
	j := testJob(Enforcement{Memory: true, Pids: true, CPU: true})
	j.inputName, j.inputSource = "", ""
	j.nprocHard = 1000
	s := buildSpec(DefaultLimits, j)
	for _, m := range s.Mounts {
		if m.Type == "bind" {
			t.Errorf("bind mount without input: %+v", m)
		}
	}
	if v, _ := rlimit(s, "nproc"); v != 1000 {
		t.Errorf("nproc %d above the service's hard limit", v)
	}
}

func TestCommandSplitsLargeScripts(t *testing.T) {
	src := strings.Repeat("x = 1  # padding\n", 20000) // 340 KB
	j := testJob(Enforcement{})
	j.script = []byte(src)
	argv := command(DefaultLimits, j)
	var got []byte
	for _, a := range argv[6:] {
		if len(a) > 128<<10 {
			t.Fatalf("argument of %d bytes: over the kernel's 128 KiB per argument", len(a))
		}
		b, err := base64.StdEncoding.DecodeString(a)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b...)
	}
	if string(got) != src {
		t.Fatal("script does not survive the split")
	}
}

func TestLimits(t *testing.T) {
	l := Limits{}.WithDefaults()
	if l != DefaultLimits {
		t.Fatalf("%+v", l)
	}
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Limits{
		{Timeout: -1}, {Memory: 1}, {CPUs: -1}, {Pids: 2}, {OutputFiles: -1}, {OutputBytes: 10}, {TmpSize: 1},
	} {
		if err := bad.WithDefaults().Validate(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestContainerName(t *testing.T) {
	for in, want := range map[string]string{
		"sales.csv":            "sales.csv",
		"my data (v2) 'x'.csv": "my data (v2) 'x'.csv",
		"line\nbreak.csv":      "line_break.csv",
		"bad\xffbyte.csv":      "bad_byte.csv",
		"..":                   "input",
		"tab\there.csv":        "tab_here.csv",
	} {
		got, renamed := containerName(in)
		if got != want || renamed != (in != want) {
			t.Errorf("containerName(%q) = %q, %t; want %q", in, got, renamed, want)
		}
	}
	long := strings.Repeat("é", 200) + ".csv"
	if got, _ := containerName(long); len(got) > 255 || !strings.HasSuffix(got, ".csv") {
		t.Errorf("long name %d bytes", len(got))
	}
}

// TestBuildSpecPrivateCopy: rehome's private copy of an owner-only input is
// handed to the sandbox's user by the mount ("U"), read-only.
func TestBuildSpecPrivateCopy(t *testing.T) {
	j := testJob(Enforcement{Memory: true, Pids: true, CPU: true})
	j.inputOwned = true
	s := buildSpec(DefaultLimits, j)
	n := 0
	for _, m := range s.Mounts {
		if m.Type == "bind" {
			n++
			if !slices.Contains(m.Options, "U") || !slices.Contains(m.Options, "ro") {
				t.Errorf("private copy mount options %v", m.Options)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d bind mounts", n)
	}
}

// TestBuildSpecRootlessUserNS: a rootless service's containers are in the
// user's namespace already; no id mapping of rehome's own.
func TestBuildSpecRootlessUserNS(t *testing.T) {
	j := testJob(Enforcement{})
	j.idBase = 0
	s := buildSpec(DefaultLimits, j)
	if s.UserNS.NSMode != "" || s.IDMappings != nil {
		t.Errorf("userns %v %+v", s.UserNS, s.IDMappings)
	}
	if s.SeccompPolicy != "image" {
		t.Error("no seccomp profile rootless")
	}
}

// TestSeccompProfile checks the profile rehome writes: Podman's default
// allow-list without the keyring, new user namespaces, socket families
// past AF_NETLINK, socketcall, io_uring and 32-bit calls.
func TestSeccompProfile(t *testing.T) {
	var p struct {
		DefaultAction string `json:"defaultAction"`
		DefaultErrno  *uint  `json:"defaultErrnoRet"`
		ArchMap       []struct {
			Arch string   `json:"architecture"`
			Sub  []string `json:"subArchitectures"`
		} `json:"archMap"`
		Syscalls []struct {
			Names    []string `json:"names"`
			Action   string   `json:"action"`
			ErrnoRet *uint    `json:"errnoRet"`
			Args     []struct {
				Index    uint   `json:"index"`
				Value    uint64 `json:"value"`
				ValueTwo uint64 `json:"valueTwo"`
				Op       string `json:"op"`
			} `json:"args"`
			Includes struct {
				Caps []string `json:"caps"`
			} `json:"includes"`
		} `json:"syscalls"`
	}
	if err := json.Unmarshal(seccompProfile(), &p); err != nil {
		t.Fatal(err)
	}
	if p.DefaultAction != "SCMP_ACT_ERRNO" {
		t.Errorf("default action %s", p.DefaultAction)
	}
	for _, a := range p.ArchMap {
		if len(a.Sub) != 0 {
			t.Errorf("%s keeps sub-architectures %v", a.Arch, a.Sub)
		}
	}
	type rule struct {
		action string
		errno  uint
		args   string
	}
	rules := map[string][]rule{}
	for _, sc := range p.Syscalls {
		var args []string
		for _, a := range sc.Args {
			args = append(args, fmt.Sprintf("%d %s %d %d", a.Index, a.Op, a.Value, a.ValueTwo))
		}
		r := rule{action: sc.Action, args: strings.Join(args, ";")}
		if sc.ErrnoRet != nil {
			r.errno = *sc.ErrnoRet
		}
		for _, n := range sc.Names {
			rules[n] = append(rules[n], r)
		}
	}
	// Still allowed as in the default: the usual calls.
	for _, n := range []string{"read", "write", "openat", "mmap", "execve", "wait4", "futex", "getrandom"} {
		if len(rules[n]) != 1 || rules[n][0].action != "SCMP_ACT_ALLOW" {
			t.Errorf("%s: %+v", n, rules[n])
		}
	}
	// Refused outright, whatever the capabilities.
	for _, n := range []string{"keyctl", "add_key", "request_key", "unshare", "setns", "socketcall", "io_uring_setup", "io_uring_enter", "io_uring_register"} {
		if len(rules[n]) != 1 || rules[n][0].action != "SCMP_ACT_ERRNO" || rules[n][0].errno != uint(syscall.EPERM) || rules[n][0].args != "" {
			t.Errorf("%s: %+v", n, rules[n])
		}
	}
	want := map[string][]rule{
		"clone": {
			{"SCMP_ACT_ALLOW", 0, "0 SCMP_CMP_MASKED_EQ 268435456 0"},
			{"SCMP_ACT_ERRNO", uint(syscall.EPERM), "0 SCMP_CMP_MASKED_EQ 268435456 268435456"},
		},
		"clone3": {{"SCMP_ACT_ERRNO", uint(syscall.ENOSYS), ""}},
		"socket": {
			{"SCMP_ACT_ALLOW", 0, "0 SCMP_CMP_LT 16 0"},
			{"SCMP_ACT_ALLOW", 0, "0 SCMP_CMP_EQ 16 0;2 SCMP_CMP_NE 9 0"},
			{"SCMP_ACT_ERRNO", uint(syscall.EINVAL), "0 SCMP_CMP_EQ 16 0;2 SCMP_CMP_EQ 9 0"},
			{"SCMP_ACT_ERRNO", uint(syscall.EAFNOSUPPORT), "0 SCMP_CMP_GT 16 0"},
		},
	}
	for n, w := range want {
		if !slices.Equal(rules[n], w) {
			t.Errorf("%s: %+v, want %+v", n, rules[n], w)
		}
	}
}
