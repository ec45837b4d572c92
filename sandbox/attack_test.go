package sandbox

// Real-Podman attacks of issue 9 (the sandbox half): the kernel keyring
// between runs, user namespaces, AF_VSOCK and other socket families,
// signals to PID 1, host facts inside, owner-only inputs rootless and
// rootful, 400,000 outputs, a socket as the input. They skip (fail under
// REHOME_REQUIRE_PODMAN=1) like the other real-Podman tests.

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// One run plants data in the kernel keyring; a later run must not find
// it. The keyring calls are refused by the seccomp profile, and each
// rootful run has a user namespace (and so a user keyring) of its own.
func TestAttackKeyringAcrossRuns(t *testing.T) {
	token := randomToken()
	a := runCode(t, strings.ReplaceAll(probeKeyringPlant, "TOKEN", token), Limits{}, "")
	b := runCode(t, strings.ReplaceAll(probeKeyringLook, "TOKEN", token), Limits{}, "")
	t.Logf("plant: %s look: %s", strings.TrimSpace(a.Stdout), strings.TrimSpace(b.Stdout))
	if a.ExitCode != 0 || b.ExitCode != 0 {
		t.Fatalf("probes failed: %s %s | %s %s", a.Summary, a.Stderr, b.Summary, b.Stderr)
	}
	if strings.Contains(b.Stdout, "FOUND") {
		t.Fatalf("a run read what an earlier run left in the keyring: %s", b.Stdout)
	}
	if !strings.Contains(a.Stdout, "HELD keyctl: EPERM, add_key: EPERM") || !strings.Contains(b.Stdout, "HELD keyctl(KEYCTL_READ @u): EPERM") {
		t.Fatalf("the keyring calls are not refused: %s | %s", a.Stdout, b.Stdout)
	}
}

// Each rootful run has a user namespace of its own: the sandbox's uid
// 10001 is not the host's uid 10001, and two runs at once have different
// host ids. New user namespaces cannot be made inside.
func TestAttackUserNamespaces(t *testing.T) {
	e := testEngine(t)
	var wg sync.WaitGroup
	res := make([]*Result, 2)
	for i := range res {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = runCode(t, probeUserNS, Limits{}, "")
		}()
	}
	wg.Wait()
	maps := map[string]bool{}
	for _, r := range res {
		t.Logf("%s", strings.TrimSpace(r.Stdout))
		if gradeProbe(r) != Held {
			t.Fatalf("user namespaces: %s %s", r.Stdout, r.Stderr)
		}
		maps[firstLine(r.Stdout, "MAP")] = true
		if !e.Host().Rootless && !strings.Contains(r.Stdout, "OWNNS") {
			t.Fatalf("rootful run without a user namespace of its own: %s", r.Stdout)
		}
	}
	if !e.Host().Rootless && len(maps) != 2 {
		t.Fatalf("two runs at once share their host ids: %v", maps)
	}
}

// AF_VSOCK (it crosses network namespaces), AF_PACKET, raw sockets,
// AF_ALG and io_uring are refused; ordinary sockets still work.
func TestAttackSockets(t *testing.T) {
	res := runCode(t, probeSockets, Limits{}, "")
	if gradeProbe(res) != Held {
		t.Fatalf("%s\n%s", res.Stdout, res.Stderr)
	}
}

// Signals the code sends to PID 1 do not end the runner: what it printed
// before and after comes back with the report.
func TestAttackSignalsToPID1(t *testing.T) {
	res := runCode(t, probeSignals, Limits{}, "")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "PRINTED-BEFORE") || !strings.Contains(res.Stdout, "AFTER") || !strings.HasPrefix(res.Summary, "Finished") {
		t.Fatalf("exit %d %q %q %s", res.ExitCode, res.Stdout, res.Stderr, res.Summary)
	}
	// The code itself still gets the default actions: SIGINT to itself is
	// a KeyboardInterrupt, SIGTERM kills it.
	res = runCode(t, "import os, signal\ntry:\n    os.kill(os.getpid(), signal.SIGINT)\n    import time; time.sleep(1)\nexcept KeyboardInterrupt:\n    print('KI')\nos.kill(os.getpid(), signal.SIGTERM)\nimport time; time.sleep(1)\n# NONZERO_OK", Limits{}, "")
	if !strings.Contains(res.Stdout, "KI") || res.ExitCode != 128+15 {
		t.Fatalf("the code's own signals: exit %d %q %s", res.ExitCode, res.Stdout, res.Summary)
	}
}

// The sandbox learns nothing about the host: no host folder of the input
// in the mount table, only localhost in /etc/hosts, no resolver.
func TestAttackHostFacts(t *testing.T) {
	dir := filepath.Join(hostDir(t), "user-folder-"+randomToken())
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	input := writeFile(t, dir, "input data.csv", []byte("a,b\n1,2\n"))
	host, _ := os.Hostname()
	code := strings.NewReplacer("WORKDIR", dir, "HOSTNAME", host).Replace(probeHostFacts)
	res := runCode(t, code+"\nprint(open('/proc/self/mountinfo').read())\nprint(open('/etc/hosts').read())\n", Limits{}, input)
	if gradeProbe(res) != Held {
		t.Fatalf("%s\n%s", res.Stdout, res.Stderr)
	}
	if strings.Contains(res.Stdout, "user-folder-") || strings.Contains(res.Stdout, "host.containers.internal") {
		t.Fatalf("host facts inside:\n%s", res.Stdout)
	}
}

// An owner-only input (0600) reaches the code through a private copy in a
// 0700 folder under the runtime folder that no other local user can read
// while the run lasts; the copy is gone after the run. The run's stage
// root is the test's own, rehome-stage in a folder of the runtime folder
// that everyone may enter (as /run): the runs of another test process
// (which share /run/rehome-stage) make no folder there.
func TestAttackOwnerOnlyCopyIsPrivate(t *testing.T) {
	e := testEngine(t)
	if os.Geteuid() != 0 {
		t.Skip("trying the copy as another user needs root (runuser)")
	}
	dir := hostDir(t)
	path := writeFile(t, dir, "private.csv", []byte("a,b\n1,2\nSECRET-"+randomToken()+"\n"))
	os.Chmod(path, 0o600)
	roots := ownStageRoot(t, e)
	before := stageEntries(roots)

	type seen struct {
		dir, file     os.FileMode
		otherRead     string
		otherList     string
		dirs          []string
		copyOwnerHost uint32
	}
	var got seen
	var once sync.Once
	probe := func() {
		now := stageEntries(roots)
		for _, d := range now {
			if slices.Contains(before, d) {
				continue
			}
			got.dirs = append(got.dirs, d)
			st, err := os.Stat(d)
			if err == nil {
				got.dir = st.Mode().Perm()
			}
			f := filepath.Join(d, "input")
			if st, err := os.Stat(f); err == nil {
				got.file = st.Mode().Perm()
				got.copyOwnerHost = st.Sys().(*syscall.Stat_t).Uid
			}
			out, _ := exec.Command("runuser", "-u", "nobody", "--", "cat", f).CombinedOutput()
			got.otherRead = string(out)
			out, _ = exec.Command("runuser", "-u", "nobody", "--", "ls", d).CombinedOutput()
			got.otherList = string(out)
		}
	}
	res, err := e.Run(context.Background(), RunRequest{
		Code:      "import sys, time\nprint(open('/mnt/data/private.csv').read().count('SECRET'), 'READY', flush=True)\ntime.sleep(3)\n",
		InputPath: path,
	}, func(p Progress) {
		if p.Stage == "output" && strings.Contains(p.Text, "READY") {
			once.Do(probe)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stage %v dir %v file %v owner %d; nobody: cat %q ls %q", got.dirs, got.dir, got.file, got.copyOwnerHost, got.otherRead, got.otherList)
	if res.ExitCode != 0 || !strings.HasPrefix(res.Stdout, "1 READY") {
		t.Fatalf("exit %d %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if len(got.dirs) != 1 || got.dir != 0o700 || got.file&0o077 != 0 {
		t.Fatalf("the private copy is not private: dirs %v, folder %v, file %v", got.dirs, got.dir, got.file)
	}
	if strings.Contains(got.otherRead, "SECRET") || !strings.Contains(got.otherRead, "Permission denied") || !strings.Contains(got.otherList, "Permission denied") {
		t.Fatalf("another user reached the copy: cat %q ls %q", got.otherRead, got.otherList)
	}
	if _, err := os.Stat(got.dirs[0]); !os.IsNotExist(err) {
		t.Fatalf("the private folder outlived the run: %v", err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 || st.Sys().(*syscall.Stat_t).Uid != 0 {
		t.Fatalf("the user's own file changed: %v", st.Mode())
	}
}

// ownStageRoot makes e's runs stage in a root of this test's own, in the
// runtime folder rehome stages in (/run for root), until the test ends.
func ownStageRoot(t *testing.T, e *Engine) []string {
	t.Helper()
	runtimeDir := filepath.Dir(stageRoots(e.cacheDir())[0])
	parent := filepath.Join(runtimeDir, "rehome-test-"+randomToken())
	if err := os.Mkdir(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(parent, 0o755) // whatever the umask: as open as /run
	root := filepath.Join(parent, stageDirName)
	e.mu.Lock()
	e.stageBase = root
	e.mu.Unlock()
	t.Cleanup(func() {
		e.mu.Lock()
		e.stageBase = ""
		e.mu.Unlock()
		os.RemoveAll(parent)
	})
	return []string{root}
}

func stageEntries(roots []string) []string {
	var out []string
	for _, r := range roots {
		entries, _ := os.ReadDir(r)
		for _, e := range entries {
			out = append(out, filepath.Join(r, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

// A crash leaves a private folder behind: the next start removes it, but
// never the folder of a run that is still going (it holds its lock).
func TestStageLeftoversRemoved(t *testing.T) {
	roots := []string{filepath.Join(t.TempDir(), stageDirName)}
	live, err := newStage(roots, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer live.remove()
	dead, err := newStage(roots, 0)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dead.dir, "input"), []byte("secret"), 0o600)
	dead.lock.Close() // the process died: its lock is gone, the folder stays
	if st, _ := os.Stat(filepath.Dir(live.dir)); st.Mode().Perm() != 0o700 {
		t.Fatalf("stage root %v", st.Mode())
	}
	if n := sweepStages(roots); n != 1 {
		t.Fatalf("swept %d", n)
	}
	if _, err := os.Stat(dead.dir); !os.IsNotExist(err) {
		t.Fatal("the dead run's folder is still there")
	}
	if _, err := os.Stat(live.dir); err != nil {
		t.Fatal("the live run's folder was removed")
	}
}

// 400,000 small files in /mnt/data: the runner keeps the first 64, counts
// the rest, and is not killed for memory.
func TestAttackManySmallOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 400,000 files take a while")
	}
	res := runCode(t, `
import os
for i in range(400000):
    os.close(os.open('/mnt/data/f%06d' % i, os.O_CREAT | os.O_WRONLY, 0o644))
print('made', len(os.listdir('/mnt/data')))
`, Limits{Timeout: 180 * time.Second, Memory: 1024 * MiB}, "")
	t.Logf("%s | %q | files %d | skipped %v", res.Summary, res.Stdout, len(res.Files), res.Skipped)
	if res.ExitCode != 0 || res.OOMKilled || len(res.Files) != 64 {
		t.Fatalf("exit %d oom %t files %d: %s %s", res.ExitCode, res.OOMKilled, len(res.Files), res.Summary, res.Stderr)
	}
	found := false
	for _, s := range res.Skipped {
		found = found || strings.Contains(s.Reason, "more not kept")
	}
	if !found || len(res.Skipped) > 5 {
		t.Fatalf("no count of what was not kept, or a flood of skips: %v", res.Skipped)
	}
}

// A Unix socket as the input is refused with what it is and what to give
// instead, before any container starts.
func TestSocketInput(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "data.csv")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = openInput(sock)
	if err == nil || !strings.Contains(err.Error(), "is a Unix socket") || !strings.Contains(err.Error(), "regular file") {
		t.Fatalf("socket input: %v", err)
	}
}

// TestUserNSRunCost measures what a rootful run's own user namespace
// costs: the median wall time of a print(1) run with and without it,
// alternating (REHOME_MEASURE_USERNS=N rounds; skipped otherwise).
func TestUserNSRunCost(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("REHOME_MEASURE_USERNS"))
	if rounds <= 0 {
		t.Skip("set REHOME_MEASURE_USERNS=N to measure")
	}
	e := testEngine(t)
	if e.Host().Rootless {
		t.Skip("rootful only")
	}
	defer func() { e.noUserNS = false }()
	times := map[bool][]time.Duration{}
	for i := 0; i < rounds; i++ {
		for _, off := range []bool{false, true} {
			e.noUserNS = off
			start := time.Now()
			res, err := e.Run(context.Background(), RunRequest{Code: "print(1)"}, nil)
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("%v %+v", err, res)
			}
			times[off] = append(times[off], time.Since(start))
		}
	}
	med := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	t.Logf("print(1), median of %d: without a user namespace %s, with one of its own %s", rounds, med(times[true]), med(times[false]))
}

// An older rehome's run folder in /tmp that a crash left behind (with a
// world-readable copy in it) is removed at the next start; a recent one,
// which may still be in use, is not.
func TestOldRunFoldersRemoved(t *testing.T) {
	old, err := os.MkdirTemp("", "rehome-run-")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(old, "private-copy"), []byte("secret"), 0o644)
	past := time.Now().Add(-3 * time.Hour)
	os.Chtimes(old, past, past)
	recent, err := os.MkdirTemp("", "rehome-run-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(recent)
	sweepOldRunFolders()
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		os.RemoveAll(old)
		t.Fatal("the crashed run's folder is still there")
	}
	if _, err := os.Stat(recent); err != nil {
		t.Fatal("a recent run folder was removed")
	}
}

// A large input (past the copy size) others may read is hard-linked into
// the run's folder when that is on the file's file system: the mount
// table names no folder of the user's there either, and nothing is copied.
func TestAttackHostFactsLargeInput(t *testing.T) {
	e := testEngine(t)
	dir := filepath.Join(hostDir(t), "user-folder-"+randomToken())
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.csv")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(stageCopyMax + 1<<20)
	f.WriteAt([]byte("tail\n"), stageCopyMax+1<<20-5)
	f.Close()
	var st syscall.Stat_t
	syscall.Stat(big, &st)
	roots := sameDeviceFirst(stageRoots(e.cacheDir()), st.Dev)
	var rst syscall.Stat_t
	if syscall.Stat(roots[0], &rst) != nil || rst.Dev != st.Dev {
		t.Skipf("no stage folder on the file system of %s here: the mount table shows its path (documented)", dir)
	}
	// The same file system through another mount (a bind mount, as in a
	// container or chroot) refuses links too (EXDEV): then the same.
	probe := filepath.Join(roots[0], "link-probe-"+randomToken())
	if err := os.Link(big, probe); err != nil {
		t.Skipf("no hard link from %s to %s here (%v): the mount table shows its path (documented)", roots[0], dir, err)
	}
	os.Remove(probe)
	res := runCode(t, "import os\nmi = open('/proc/self/mountinfo').read()\nprint([l for l in mi.splitlines() if 'big.csv' in l])\nf = open('/mnt/data/big.csv', 'rb'); f.seek(-5, 2); print(f.read())\n", Limits{}, big)
	t.Logf("%s", res.Stdout)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "b'tail\\n'") || strings.Contains(res.Stdout, "user-folder-") || !strings.Contains(res.Stdout, stageDirName) {
		t.Fatalf("exit %d %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if fi, _ := os.Stat(big); fi.Sys().(*syscall.Stat_t).Nlink != 1 {
		t.Fatal("the hard link outlived the run")
	}
}

// Red team: shared memory no process maps holds RAM that no resident set
// shows. Rootless on cgroup v1 the memory watchdog sums the processes'
// memory, and a run held 1 GiB in memfds (768 MiB in detached System V
// segments) against a 256 MiB ceiling. memfd_create and the System V
// shared memory calls are refused; ctypes callbacks (libffi) and
// multiprocessing's POSIX shared memory (/dev/shm, a sized tmpfs) still
// work.
func TestAttackUnmappedSharedMemory(t *testing.T) {
	res := runCode(t, `
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(*a):
    r = libc.syscall(*[ctypes.c_long(x) if isinstance(x, int) else x for x in a])
    return "OK" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
try:
    os.memfd_create("x")
    print("memfd_create OK")
except OSError as e:
    print("memfd_create", errno.errorcode.get(e.errno))
print("memfd_create(raw)", call(319, b"x", 0))
print("shmget", call(29, 0, 1 << 20, 0o1600))
print("shmat", call(30, 0, 0, 0))
cb = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)(lambda x: x + 1)
print("callback", cb(41))
from multiprocessing import shared_memory
m = shared_memory.SharedMemory(create=True, size=1 << 20)
m.buf[0] = 7
print("posix shm", m.buf[0])
m.close(); m.unlink()
`, Limits{}, "")
	t.Logf("%s", res.Stdout)
	if res.ExitCode != 0 {
		t.Fatalf("probe failed: %s %s", res.Summary, res.Stderr)
	}
	for _, want := range []string{"memfd_create EPERM", "memfd_create(raw) EPERM", "shmget EPERM", "shmat EPERM", "callback 42", "posix shm 7"} {
		if !strings.Contains(res.Stdout, want+"\n") {
			t.Errorf("want %q in:\n%s", want, res.Stdout)
		}
	}
}

// Red team: /proc and /sys name the host. The kernel command line and the
// boot id (the same in every run, unique to this machine and boot) are
// masked; where no cgroup holds a ceiling (rootless on cgroup v1) the
// host's cgroup tree, with other users' containers in it, is hidden too.
func TestAttackHostFactsProcSys(t *testing.T) {
	cmdline, err := os.ReadFile("/proc/cmdline")
	if err != nil || len(strings.TrimSpace(string(cmdline))) < 8 {
		t.Skipf("this host's /proc/cmdline is too short to look for: %q %v", cmdline, err)
	}
	bootID, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		t.Fatal(err)
	}
	res := runCode(t, `
import os, glob
def rd(p):
    try:
        return open(p).read().strip()
    except OSError as e:
        return "ERR " + type(e).__name__
print("CMDLINE", rd("/proc/cmdline"))
print("BOOTID", rd("/proc/sys/kernel/random/boot_id"))
for d in sorted(glob.glob("/sys/fs/cgroup/*/")):
    try:
        print("CGROUP", d, sorted(os.listdir(d)))
    except OSError as e:
        print("CGROUP", d, "ERR", e)
`, Limits{}, "")
	t.Logf("%s", res.Stdout)
	if res.ExitCode != 0 {
		t.Fatalf("probe failed: %s %s", res.Summary, res.Stderr)
	}
	if strings.Contains(res.Stdout, strings.TrimSpace(string(cmdline))) {
		t.Errorf("the host's kernel command line is readable inside")
	}
	if strings.Contains(res.Stdout, strings.TrimSpace(string(bootID))) {
		t.Errorf("the host's boot id is readable inside")
	}
	if strings.Contains(res.Stdout, "libpod_parent") || strings.Contains(res.Stdout, "libpod-") || strings.Contains(res.Stdout, "user.slice") {
		t.Errorf("the host's cgroup tree (other containers) is listed inside")
	}
}

// Red team: a run's private folder must not live where another user can
// reach into it. In a runtime folder others may write (a misconfigured
// $XDG_RUNTIME_DIR), another user planted rehome-stage and renamed a
// rootless run's folder away while it ran: the private copy of a 0600
// input outlived the run. Such a root, a link as the root, or a root of
// another user's is passed over for the next one, and never swept.
func TestAttackStageRootOfAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making folders of another user needs root")
	}
	base := t.TempDir()
	fallback := filepath.Join(base, "cache", stageDirName)
	if err := os.MkdirAll(filepath.Dir(fallback), 0o700); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, mode os.FileMode) string {
		d := filepath.Join(base, name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, mode)
		return d
	}
	// A runtime folder others may write, the stage root planted there by
	// another user (nobody).
	shared := mk("shared", 0o777)
	planted := filepath.Join(shared, stageDirName)
	if err := os.Mkdir(planted, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(planted, 0o777)
	if err := os.Chown(planted, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	// A private runtime folder whose stage root is a link to the other
	// user's folder.
	linked := mk("linked", 0o700)
	if err := os.Symlink(planted, filepath.Join(linked, stageDirName)); err != nil {
		t.Fatal(err)
	}
	// A runtime folder others may write, no stage root yet: rehome would
	// make it, and another user could rename it away.
	open := mk("open", 0o777)
	// A leftover in the planted root must not be swept as ours.
	bait := filepath.Join(planted, "bait")
	os.Mkdir(bait, 0o700)
	for _, root := range []string{planted, filepath.Join(linked, stageDirName), filepath.Join(open, stageDirName)} {
		st, err := newStage([]string{root, fallback}, 0)
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		if filepath.Dir(st.dir) != fallback {
			t.Errorf("a run's private folder was made in %s, where another user can reach it", st.dir)
		}
		st.remove()
	}
	sweepStages([]string{planted})
	if _, err := os.Stat(bait); err != nil {
		t.Errorf("another user's folder was swept: %v", err)
	}
	// The usual roots are used: a private folder of root's in a folder
	// only root may change.
	own := filepath.Join(mk("own", 0o755), stageDirName)
	st, err := newStage([]string{own, fallback}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer st.remove()
	if filepath.Dir(st.dir) != own {
		t.Errorf("a private root was passed over: %s", st.dir)
	}
}

// Red team: the runner (PID 1) runs as the code's uid, and some calls ask
// only for the same uid, not for ptrace rights. The code set the runner's
// RLIMIT_AS (it died: the report and what was printed were lost) or its
// RLIMIT_NOFILE (no output came back), and made it SCHED_IDLE under 100
// busy processes (the output printed before the limit was lost). These
// are refused for PID 1, also as 0x100000001 (the kernel reads a 32-bit
// pid); the code's own processes keep them.
func TestAttackRunnerLimitsAndScheduling(t *testing.T) {
	res := runCode(t, `
import ctypes, errno, os, resource
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(*a):
    r = libc.syscall(*[ctypes.c_long(x) for x in a])
    return "OK" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
lim = (ctypes.c_ulong * 2)(1 << 20, 1 << 20)
buf = (ctypes.c_ulong * 2)()
print("prlimit set pid1", call(302, 1, resource.RLIMIT_AS, ctypes.addressof(lim), 0))
print("prlimit set pid1 high", call(302, (1 << 32) | 1, resource.RLIMIT_AS, ctypes.addressof(lim), 0))
print("prlimit read pid1", call(302, 1, resource.RLIMIT_AS, 0, ctypes.addressof(buf)))
param = ctypes.c_int(0)
print("sched pid1", call(144, 1, 5, ctypes.addressof(param)))
print("sched pid1 high", call(144, (1 << 32) | 1, 5, ctypes.addressof(param)))
print("affinity pid1", call(203, 1, 8, ctypes.addressof(buf)))
print("prio process 1", call(141, 0, 1, 19))
print("prio pgrp 1", call(141, 1, 1, 19))
print("prio user", call(141, 2, 0, 19))
print("prio pgrp high", call(141, 1, (1 << 32) | 1, 19))
print("ioprio pid1", call(251, 1, 1, 3 << 13))
print("ioprio user", call(251, 3, 0, 3 << 13))
# the code's own processes keep these calls
resource.setrlimit(resource.RLIMIT_NOFILE, (512, 1024))
pid = os.fork()
if pid == 0:
    import time; time.sleep(5); os._exit(0)
resource.prlimit(pid, resource.RLIMIT_NOFILE, (100, 100))
os.sched_setscheduler(pid, os.SCHED_BATCH, os.sched_param(0))
os.sched_setaffinity(0, os.sched_getaffinity(0))
os.setpriority(os.PRIO_PROCESS, pid, min(19, os.getpriority(os.PRIO_PROCESS, pid) + 1))  # lower only: the tests may run under nice
os.nice(1)
assert libc.syscall(ctypes.c_long(251), ctypes.c_long(1), ctypes.c_long(pid), ctypes.c_long(2 << 13 | 4)) == 0
os.kill(pid, 9)
print("own OK")
print("x" * 100000)
`, Limits{}, "")
	t.Logf("%.2000s", res.Stdout)
	if res.ExitCode != 0 || !strings.HasPrefix(res.Summary, "Finished") {
		t.Fatalf("probe failed: %s %s", res.Summary, res.Stderr)
	}
	for _, l := range strings.Split(res.Stdout, "\n") {
		if strings.HasSuffix(l, " OK") && l != "own OK" && l != "prlimit read pid1 OK" {
			t.Errorf("allowed on the runner: %s", l)
		}
	}
	for _, want := range []string{"prlimit read pid1 OK\n", "own OK\n", strings.Repeat("x", 100000)} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("missing %.40q", want)
		}
	}
	// The attack itself: the runner's memory cut to 1 MiB, then output.
	res = runCode(t, "import resource\nprint('BEFORE', flush=True)\ntry:\n    resource.prlimit(1, resource.RLIMIT_AS, (1 << 20, 1 << 20))\nexcept OSError as e:\n    print('refused', e.errno)\nprint('y' * 100000)\n", Limits{}, "")
	if !strings.HasPrefix(res.Summary, "Finished") || !strings.Contains(res.Stdout, strings.Repeat("y", 100000)) {
		t.Fatalf("the code disturbed the runner: %s %.200q", res.Summary, res.Stdout)
	}
}
