package sandbox

// Real-Podman attacks of issue 18 on the session path: what the one-shot
// path holds (attack_test.go) must hold in a session too, since the Code
// Interpreter screen and every ask run code there.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// probeCell runs code as a cell and fails the test unless the cell ran.
func probeCell(t *testing.T, s *Session, code string) *CellResult {
	t.Helper()
	r := execCell(t, s, code, time.Minute)
	if r.Status != "ok" {
		t.Fatalf("probe cell: %s %s\n%s", r.Status, r.Summary, r.Stderr)
	}
	return r
}

// A session on an owner-only file puts its contents in the kernel
// keyring; another session running beside it, and a third started after
// both ended, must not read it back. The keyring calls are refused in
// sessions as in one-shot runs, and each rootful session has a user
// namespace (and so a user keyring) of its own.
func TestSessionAttackKeyring(t *testing.T) {
	token := randomToken()
	secret := writeFile(t, hostDir(t), "secret.csv", []byte(token))
	os.Chmod(secret, 0o600)
	a := startSession(t, secret, Limits{})
	b := startSession(t, "", Limits{})
	// The token planted is the owner-only file's contents.
	plant := "assert open('/mnt/data/secret.csv').read() == 'TOKEN'\n" + probeKeyringPlant
	ra := probeCell(t, a, strings.ReplaceAll(probeLibc+plant, "TOKEN", token))
	look := strings.ReplaceAll(probeKeyringLook, "TOKEN", token)
	rb := probeCell(t, b, look)
	t.Logf("plant: %s | look beside: %s", strings.TrimSpace(ra.Stdout), strings.TrimSpace(rb.Stdout))
	if err := a.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := b.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := startSession(t, "", Limits{})
	rc := probeCell(t, c, look)
	t.Logf("look after: %s", strings.TrimSpace(rc.Stdout))
	for _, r := range []*CellResult{rb, rc} {
		if strings.Contains(r.Stdout, "FOUND") {
			t.Fatalf("a session read another's secret back from the kernel keyring: %s", r.Stdout)
		}
	}
	if !strings.Contains(ra.Stdout, "HELD keyctl: EPERM, add_key: EPERM") || !strings.Contains(rc.Stdout, "HELD keyctl(KEYCTL_READ @u): EPERM") {
		t.Fatalf("the keyring calls are not refused in sessions: %s | %s", ra.Stdout, rc.Stdout)
	}
}

// A rootful session runs in a user namespace of its own (its uid_map is
// not the identity map); two sessions have different host ids; unshare
// -U, clone(CLONE_NEWUSER) and clone3 fail inside.
func TestSessionAttackUserNamespace(t *testing.T) {
	e := testEngine(t)
	maps := map[string]bool{}
	for range 2 {
		s := startSession(t, "", Limits{})
		r := probeCell(t, s, probeUserNS)
		t.Logf("%s", strings.TrimSpace(r.Stdout))
		if gradeProbe(&r.Result) != Held {
			t.Fatalf("user namespaces in a session: %s %s", r.Stdout, r.Stderr)
		}
		if !e.Host().Rootless && !strings.Contains(r.Stdout, "OWNNS") {
			t.Fatalf("rootful session without a user namespace of its own: %s", r.Stdout)
		}
		maps[firstLine(r.Stdout, "MAP")] = true
	}
	if !e.Host().Rootless && len(maps) != 2 {
		t.Fatalf("two sessions share their host ids: %v", maps)
	}
}

// AF_VSOCK and the other refused socket families, memfd_create and
// System V shared memory are refused in a session as in a one-shot run.
func TestSessionAttackKernelSurfaces(t *testing.T) {
	s := startSession(t, "", Limits{})
	r := probeCell(t, s, probeSockets)
	if gradeProbe(&r.Result) != Held {
		t.Fatalf("sockets in a session: %s", r.Stdout)
	}
	r = probeCell(t, s, probeLibc+`
try:
    os.memfd_create("x")
    print("memfd_create OK")
except OSError as e:
    print("memfd_create", errno.errorcode.get(e.errno))
r, e = sc(29 if os.uname().machine == 'x86_64' else 194, 0, 1 << 20, 0o1600)
print("shmget", "OK" if r >= 0 else errno.errorcode.get(e, e))
`)
	t.Logf("%s", r.Stdout)
	for _, want := range []string{"memfd_create EPERM\n", "shmget EPERM\n"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("want %q in a session:\n%s", want, r.Stdout)
		}
	}
}

// The cell's code cannot touch the supervisor (PID 1): prlimit(1, NOFILE,
// 5) killed it (the session ended), sched_setscheduler(1, SCHED_IDLE)
// starved it. Both are refused (the profile's ENOSYS), and the session
// goes on.
func TestSessionAttackSupervisor(t *testing.T) {
	s := startSession(t, "", Limits{})
	r := probeCell(t, s, `
import ctypes, errno, os, resource
try:
    resource.prlimit(1, resource.RLIMIT_NOFILE, (5, 5))
    print("prlimit pid1 OK")
except OSError as e:
    print("prlimit pid1", errno.errorcode.get(e.errno))
try:
    os.sched_setscheduler(1, os.SCHED_IDLE, os.sched_param(0))
    print("sched pid1 OK")
except OSError as e:
    print("sched pid1", errno.errorcode.get(e.errno))
`)
	t.Logf("%s", r.Stdout)
	if strings.Contains(r.Stdout, " OK") || !strings.Contains(r.Stdout, "prlimit pid1 E") || !strings.Contains(r.Stdout, "sched pid1 E") {
		t.Errorf("the cell reached the supervisor:\n%s", r.Stdout)
	}
	r = execCell(t, s, "print('x' * 100000)", time.Minute)
	if r.Status != "ok" || r.SessionEnded || len(r.Stdout) < 100000 {
		t.Fatalf("the session did not survive: %s %s", r.Status, r.Summary)
	}
}

// A world-readable input is staged for a session as for a one-shot run
// (a copy or a hard link in a private folder): the session's mount table
// names no folder of the user's.
func TestSessionAttackInputStaged(t *testing.T) {
	dir := filepath.Join(hostDir(t), "user-folder-"+randomToken())
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	input := writeFile(t, dir, "data.csv", []byte("a,b\n1,2\n"))
	s := startSession(t, input, Limits{})
	r := probeCell(t, s, "mi = open('/proc/self/mountinfo').read()\nprint([l for l in mi.splitlines() if 'data.csv' in l])\nprint(open('/mnt/data/data.csv').read())")
	t.Logf("%s", r.Stdout)
	if strings.Contains(r.Stdout, "user-folder-") || !strings.Contains(r.Stdout, "a,b\n1,2") {
		t.Fatalf("the session's mount table names the host folder:\n%s", r.Stdout)
	}
}

// The cap on sessions at once counts only the sessions of one data
// folder: a session of folder A does not refuse one of folder B (on
// 089ebe7 every session container on the service counted, whoever started
// it), a second of A is refused with advice naming it, and A's list shows
// the one that counts.
func TestSessionCapCountsOwnFolder(t *testing.T) {
	e := testEngine(t)
	ctx := context.Background()
	start := func(base string) (*Session, error) {
		s, err := e.StartSession(ctx, SessionRequest{Limits: Limits{}, Dir: filepath.Join(base, NewRunID()), MaxSessions: 1, Preload: []string{}})
		if err == nil {
			t.Cleanup(func() { s.Stop(context.Background()) })
		}
		return s, err
	}
	a, b := t.TempDir(), t.TempDir()
	sa, err := start(a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := start(b); err != nil {
		t.Fatalf("folder B refused because of folder A's session: %v", err)
	}
	_, err = start(a)
	if !errors.Is(err, ErrTooManySessions) || !strings.Contains(err.Error(), sa.ID()) {
		t.Fatalf("second session of A: %v", err)
	}
	t.Logf("%v", err)
	list, err := e.ListSessions(ctx, a)
	if err != nil || len(list) != 1 || !list[0].Running || list[0].ID != sa.ID() {
		t.Fatalf("A's list: %v %+v", err, list)
	}
}
