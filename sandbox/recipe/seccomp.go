package recipe

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sync"

	"github.com/containers/common/pkg/seccomp"
	"golang.org/x/sys/unix"
)

// SeccompLabel is the image label Podman reads a container's seccomp
// profile from when the container's seccomp policy is "image": the
// profile's JSON itself, not a path. The sandbox image carries rehome's
// profile under it, so the profile travels with the image to whichever
// machine's Podman service runs the sandbox.
const SeccompLabel = "io.containers.seccomp.profile"

// The sandbox's seccomp profile is Podman's default (containers/common,
// itself Docker's) with the kernel surfaces that code in the sandbox has no
// use for taken away:
//
//   - the kernel keyring (keyctl, add_key, request_key): keyrings belong to
//     a uid, not a container, so runs could pass data to each other there;
//   - new user namespaces (unshare, clone with CLONE_NEWUSER, clone3), the
//     usual first step of a kernel exploit: inside one the code gets a full
//     capability set over mounts, nf_tables and raw sockets;
//   - socket families past AF_NETLINK: AF_VSOCK crosses network namespaces
//     (on a VM it reaches the hypervisor), AF_PACKET and the rest have no use
//     here; socketcall and io_uring, which would create sockets past the
//     socket() rule;
//   - 32-bit system calls (int 0x80 from a 64-bit process), which would
//     reach the same calls under other numbers;
//   - anonymous shared memory that no process needs to map: memfd_create
//     and System V shared memory (shmget…). A memfd or a detached segment
//     holds RAM that no process's resident set shows, so rootless on
//     cgroup v1, where the memory watchdog sums the processes' memory, a
//     run could hold gigabytes past its ceiling (1 GiB against 256 MiB in
//     the red-team run). POSIX shared memory (/dev/shm) is a sized tmpfs;
//   - acting on the runner (PID 1, the same uid as the code) through the
//     calls that only ask for the same uid: prlimit64 (the code set the
//     runner's RLIMIT_AS or RLIMIT_NOFILE and lost the report or every
//     output), sched_setscheduler and its kin (SCHED_IDLE starved the
//     runner until the kill from outside, and what was printed was lost),
//     setpriority and ioprio_set of pid or process group 1 or of a whole
//     user.
var (
	seccompDenied = []string{"keyctl", "add_key", "request_key", "unshare", "setns", "socketcall",
		"io_uring_setup", "io_uring_enter", "io_uring_register",
		"memfd_create", "shmget", "shmat", "shmdt", "shmctl"}
	// seccompReplaced are allowed again below with their own rules.
	seccompReplaced = append([]string{"clone", "clone3", "socket", "setpriority", "ioprio_set", "prlimit64"}, seccompNotOnRunner...)
	// seccompNotOnRunner act on the process their first argument names;
	// they are allowed for any process but the runner (PID 1).
	seccompNotOnRunner = []string{"sched_setscheduler", "sched_setparam", "sched_setattr", "sched_setaffinity"}
)

// SeccompProfile returns the sandbox's profile as compact JSON, the value
// of the image's SeccompLabel: a pure function of this rehome's code and
// containers/common's default, and so part of the recipe's Digest. The
// caller must not change the slice.
var SeccompProfile = sync.OnceValue(makeSeccompProfile)

// SeccompSHA256 is the hex SHA-256 of SeccompProfile, what rehome checks
// the stored image's label against before a run.
var SeccompSHA256 = sync.OnceValue(func() string {
	sum := sha256.Sum256(SeccompProfile())
	return hex.EncodeToString(sum[:])
})

func makeSeccompProfile() []byte {
	p := seccomp.DefaultProfile()
	// Native system calls only: a call from another architecture (int 0x80)
	// matches no architecture of the filter and is refused.
	for i := range p.ArchMap {
		p.ArchMap[i].SubArches = nil
	}
	p.Syscalls = append(defaultRulesKept(p.Syscalls), argumentRules()...)
	data, err := json.Marshal(p)
	if err != nil {
		panic(err) // a fixed structure of strings and numbers
	}
	return data
}

// defaultRulesKept are the default profile's rules without the calls
// rehome denies or replaces with rules of its own.
func defaultRulesKept(rules []*seccomp.Syscall) []*seccomp.Syscall {
	var kept []*seccomp.Syscall
	for _, sc := range rules {
		names := slices.DeleteFunc(slices.Clone(sc.Names), func(n string) bool {
			return slices.Contains(seccompDenied, n) || slices.Contains(seccompReplaced, n)
		})
		if sc.Name != "" {
			names = append(names, sc.Name)
			sc.Name = ""
		}
		if len(names) == 0 {
			continue
		}
		sc.Names = names
		kept = append(kept, sc)
	}
	return kept
}

// seccompErrno fails the calls (where args match) with e.
func seccompErrno(names []string, e unix.Errno, args ...*seccomp.Arg) *seccomp.Syscall {
	ret := uint(e)
	return &seccomp.Syscall{Names: names, Action: seccomp.ActErrno, Errno: unix.ErrnoName(e), ErrnoRet: &ret, Args: append([]*seccomp.Arg{}, args...)}
}

// seccompAllow allows the calls where args match.
func seccompAllow(names []string, args ...*seccomp.Arg) *seccomp.Syscall {
	return &seccomp.Syscall{Names: names, Action: seccomp.ActAllow, Args: append([]*seccomp.Arg{}, args...)}
}

// argumentRules are rehome's own rules: the denied calls, and the calls
// allowed by their arguments (clone without a user namespace, the socket
// families, the calls that must not reach the runner, PID 1).
func argumentRules() []*seccomp.Syscall {
	errno, allow := seccompErrno, seccompAllow
	newUser := uint64(unix.CLONE_NEWUSER)
	rules := []*seccomp.Syscall{
		errno(seccompDenied, unix.EPERM),
		// fork and threads: clone without CLONE_NEWUSER (other namespace
		// flags need CAP_SYS_ADMIN, which the code never has).
		allow([]string{"clone"}, &seccomp.Arg{Index: 0, Value: newUser, ValueTwo: 0, Op: seccomp.OpMaskedEqual}),
		errno([]string{"clone"}, unix.EPERM, &seccomp.Arg{Index: 0, Value: newUser, ValueTwo: newUser, Op: seccomp.OpMaskedEqual}),
		// clone3 passes its flags in memory, out of a filter's reach:
		// ENOSYS makes the C library fall back to clone.
		errno([]string{"clone3"}, unix.ENOSYS),
		// socket: AF_UNIX … AF_NETLINK (but the audit socket, as in the
		// default profile); every later family is refused.
		allow([]string{"socket"}, &seccomp.Arg{Index: 0, Value: unix.AF_NETLINK, Op: seccomp.OpLessThan}),
		allow([]string{"socket"}, &seccomp.Arg{Index: 0, Value: unix.AF_NETLINK, Op: seccomp.OpEqualTo},
			&seccomp.Arg{Index: 2, Value: unix.NETLINK_AUDIT, Op: seccomp.OpNotEqual}),
		errno([]string{"socket"}, unix.EINVAL, &seccomp.Arg{Index: 0, Value: unix.AF_NETLINK, Op: seccomp.OpEqualTo},
			&seccomp.Arg{Index: 2, Value: unix.NETLINK_AUDIT, Op: seccomp.OpEqualTo}),
		errno([]string{"socket"}, unix.EAFNOSUPPORT, &seccomp.Arg{Index: 0, Value: unix.AF_NETLINK, Op: seccomp.OpGreaterThan}),
		// prlimit64 reads any process's limits, and sets those of any
		// process but the runner.
		allow([]string{"prlimit64"}, &seccomp.Arg{Index: 2, Value: 0, Op: seccomp.OpEqualTo}),
	}
	// "Not the runner": the kernel reads a pid (and setpriority's who) as a
	// 32-bit int while the filter sees the whole 64-bit register, so
	// 0x100000001 is pid 1 too. An argument whose low 32 bits are not 1
	// has bit 0 clear, or one of bits 1…31 set: one allow rule each, and
	// anything else falls to the profile's default errno.
	notOne := func(index uint) []*seccomp.Arg {
		out := []*seccomp.Arg{{Index: index, Value: 1, ValueTwo: 0, Op: seccomp.OpMaskedEqual}}
		for bit := 1; bit < 32; bit++ {
			out = append(out, &seccomp.Arg{Index: index, Value: 1 << bit, ValueTwo: 1 << bit, Op: seccomp.OpMaskedEqual})
		}
		return out
	}
	for _, a := range notOne(0) {
		rules = append(rules, allow(append(slices.Clone(seccompNotOnRunner), "prlimit64"), a))
	}
	// setpriority(which, who): PRIO_PROCESS or PRIO_PGRP (never
	// PRIO_USER, which reaches the runner), who not 1.
	for _, a := range notOne(1) {
		rules = append(rules, allow([]string{"setpriority"}, &seccomp.Arg{Index: 0, Value: unix.PRIO_USER, Op: seccomp.OpLessThan}, a))
		// ioprio_set(which, who): IOPRIO_WHO_PROCESS or _PGRP (1, 2),
		// never _USER (3), who not 1.
		rules = append(rules, allow([]string{"ioprio_set"}, &seccomp.Arg{Index: 0, Value: 3, Op: seccomp.OpLessThan}, a))
	}
	return rules
}
