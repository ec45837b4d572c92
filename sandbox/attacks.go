package sandbox

import (
	"context"
	"os"
	"strings"
	"time"
)

// The self-test's attacks on kernel surfaces and host facts (issue 9):
// the kernel keyring shared between runs, new user namespaces, AF_VSOCK
// and other socket families, signals to PID 1, and what the sandbox can
// learn about the host. Each probe prints HELD, or BROKEN/WEAK lines.

// attackKernel adds the checks "keyring", "user namespaces", "sockets",
// "pid 1" and "host facts" to a self-test. run runs one probe (name, code,
// limits, with the self-test's input or not); workDir is the host folder
// of the self-test's input, which the code must not learn.
func (e *Engine) attackKernel(ctx context.Context, run func(name, code string, lim Limits, withInput bool) (*Result, error), add func(name string, s Strength, format string, a ...any), workDir, token string) {
	lim := Limits{Timeout: 60 * time.Second}

	// Keyring: one run plants the token in its user keyring, a second run
	// (later, on another "file") looks for it.
	plant := strings.ReplaceAll(probeKeyringPlant, "TOKEN", token)
	look := strings.ReplaceAll(probeKeyringLook, "TOKEN", token)
	if a, err := run("keyring", plant, lim, false); err != nil {
		add("keyring", NotHeld, "the probe could not run: %v", err)
	} else if b, err := run("keyring", look, lim, false); err != nil {
		add("keyring", NotHeld, "the second probe could not run: %v", err)
	} else {
		switch {
		case a.ExitCode != 0 || b.ExitCode != 0:
			add("keyring", NotHeld, "a probe failed: %s %s | %s %s", a.Summary, lastLine(a.Stderr), b.Summary, lastLine(b.Stderr))
		case strings.Contains(b.Stdout, "FOUND"):
			add("keyring", NotHeld, "a run read what an earlier run left in the kernel keyring: %s", printable(a.Stdout+" | "+b.Stdout, 500))
		case strings.Contains(a.Stdout, "PLANTED"):
			add("keyring", Weaker, "the keyring calls work (the seccomp profile does not refuse them), but each run has a user namespace and so a keyring of its own: %s", printable(a.Stdout, 300))
		case strings.Contains(a.Stdout, "HELD") && strings.Contains(b.Stdout, "HELD"):
			add("keyring", Held, "keyctl, add_key and request_key are refused (%s); a second run found nothing of the first", printable(firstLine(a.Stdout, "HELD"), 200))
		default:
			add("keyring", NotHeld, "unclear outcome: %s | %s", printable(a.Stdout, 300), printable(b.Stdout, 300))
		}
	}

	// User namespaces and the identity the code runs as.
	if res, err := run("user namespaces", probeUserNS, lim, false); err != nil {
		add("user namespaces", NotHeld, "the probe could not run: %v", err)
	} else {
		detail := "unshare(CLONE_NEWUSER), clone(CLONE_NEWUSER) and clone3 are refused; " + printable(firstLine(res.Stdout, "MAP"), 200)
		s := gradeProbe(res)
		if s == Held && !e.Host().Rootless && !strings.Contains(res.Stdout, "OWNNS") {
			s, detail = Weaker, detail+" — but the sandbox's user is the host's uid 10001 (no user namespace of the run's own)"
		}
		if s == Held && e.Host().Rootless {
			detail += " (rootless: the sandbox's user is one of your subordinate ids, shared by your runs; the keyring stays refused)"
		}
		add("user namespaces", s, "%s", probeDetail(res, detail))
	}

	// Socket families that cross the network namespace or need no address.
	if res, err := run("sockets", probeSockets, lim, false); err != nil {
		add("sockets", NotHeld, "the probe could not run: %v", err)
	} else {
		add("sockets", gradeProbe(res), "%s", probeDetail(res, "AF_VSOCK, AF_PACKET, raw IP sockets and io_uring are refused"))
	}

	// PID 1: signals from the code do not lose the report.
	if res, err := run("pid 1", probeSignals, lim, false); err != nil {
		add("pid 1", NotHeld, "the probe could not run: %v", err)
	} else if res.ExitCode != 0 || !strings.Contains(res.Stdout, "PRINTED-BEFORE") || !strings.Contains(res.Stdout, "AFTER") {
		add("pid 1", NotHeld, "after SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to PID 1: %s (stdout %q)", res.Summary, printable(res.Stdout, 200))
	} else {
		add("pid 1", Held, "SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to PID 1 by the code changed nothing: the output printed before and after came back with the report")
	}

	// Host facts: the input's host folder, the host's names, its resolver.
	host, _ := os.Hostname()
	code := strings.NewReplacer("WORKDIR", workDir, "HOSTNAME", host).Replace(probeHostFacts)
	if res, err := run("host facts", code, lim, true); err != nil {
		add("host facts", NotHeld, "the probe could not run: %v", err)
	} else {
		add("host facts", gradeProbe(res), "%s", probeDetail(res, "the mount table names no host folder of the input; /etc/hosts holds only localhost and the sandbox's own name; no /etc/resolv.conf"))
	}
}

func firstLine(out, prefix string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

// probeLibc is shared by the probes: the C library and raw system calls.
const probeLibc = `
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return r, (ctypes.get_errno() if r < 0 else 0)
SYS = {'add_key': 248, 'request_key': 249, 'keyctl': 250, 'unshare': 272, 'clone': 56, 'clone3': 435,
       'io_uring_setup': 425, 'socket': 41}
if os.uname().machine == 'aarch64':
    SYS = {'add_key': 217, 'request_key': 218, 'keyctl': 219, 'unshare': 97, 'clone': 220, 'clone3': 435,
           'io_uring_setup': 425, 'socket': 198}
`

const probeKeyringPlant = probeLibc + `
KEY_SPEC_USER_KEYRING = -4
KEYCTL_JOIN_SESSION_KEYRING = 1
KEYCTL_LINK = 8
r, e = sc(SYS['keyctl'], KEYCTL_JOIN_SESSION_KEYRING, ctypes.c_char_p(b'rehome-TOKEN'))
r2, e2 = sc(SYS['add_key'], ctypes.c_char_p(b'user'), ctypes.c_char_p(b'rehome-TOKEN'), ctypes.c_char_p(b'TOKEN'), 5, KEY_SPEC_USER_KEYRING)
if r >= 0:
    sc(SYS['keyctl'], KEYCTL_LINK, r, KEY_SPEC_USER_KEYRING)
if r >= 0 or r2 >= 0:
    print('PLANTED join=%d add_key=%d' % (r, r2))
else:
    print('HELD keyctl: %s, add_key: %s' % (errno.errorcode.get(e, e), errno.errorcode.get(e2, e2)))
`

const probeKeyringLook = probeLibc + `
KEY_SPEC_USER_KEYRING = -4
KEYCTL_READ = 11
KEYCTL_DESCRIBE = 6
found = []
buf = ctypes.create_string_buffer(4096)
r, e = sc(SYS['keyctl'], KEYCTL_READ, KEY_SPEC_USER_KEYRING, buf, 4096)
if r >= 0:
    n = min(r, 4096) // 4
    ids = [int.from_bytes(buf.raw[i*4:i*4+4], 'little') for i in range(n)]
    for k in ids:
        d = ctypes.create_string_buffer(512)
        if sc(SYS['keyctl'], KEYCTL_DESCRIBE, k, d, 512)[0] > 0 and b'TOKEN' in d.value:
            found.append(d.value.decode('utf-8', 'replace'))
r2, e2 = sc(SYS['request_key'], ctypes.c_char_p(b'user'), ctypes.c_char_p(b'rehome-TOKEN'), None, 0)
if r2 >= 0:
    found.append('request_key found it')
if found:
    print('FOUND', found)
elif r < 0:
    print('HELD keyctl(KEYCTL_READ @u): %s' % errno.errorcode.get(e, e))
else:
    print('HELD nothing of the first run in this run\'s user keyring')
`

const probeUserNS = probeLibc + `
bad = []
CLONE_NEWUSER = 0x10000000
if libc.unshare(CLONE_NEWUSER) == 0:
    bad.append('unshare(CLONE_NEWUSER) worked')
SIGCHLD = 17
r, e = sc(SYS['clone'], CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)
if r == 0:
    os._exit(0)
if r > 0:
    os.waitpid(r, 0)
    bad.append('clone(CLONE_NEWUSER) worked')
args = (ctypes.c_uint64 * 11)(CLONE_NEWUSER, 0, 0, 0, SIGCHLD, 0, 0, 0, 0, 0, 0)
r, e = sc(SYS['clone3'], ctypes.byref(args), 88)
if r == 0:
    os._exit(0)
if r > 0:
    os.waitpid(r, 0)
    bad.append('clone3(CLONE_NEWUSER) worked')
try:
    if os.fork() == 0:
        os._exit(0)
    os.wait()
except OSError as ex:
    bad.append('fork failed: %s' % ex)
import threading
t = threading.Thread(target=lambda: None); t.start(); t.join()
m = open('/proc/self/uid_map').read().split()
print('MAP uid_map %s' % ' '.join(m))
if m[:3] != ['0', '0', '4294967295']:
    print('OWNNS')
for line in bad:
    print('BROKEN', line)
if not bad:
    print('HELD')
`

const probeSockets = probeLibc + `
import socket
bad = []
def refused(what, fn):
    try:
        s = fn()
        s.close()
        bad.append(what + ' created')
    except OSError:
        pass
refused('AF_VSOCK socket', lambda: socket.socket(40, socket.SOCK_STREAM))
refused('AF_VSOCK datagram socket', lambda: socket.socket(40, socket.SOCK_DGRAM))
refused('AF_PACKET socket', lambda: socket.socket(17, socket.SOCK_RAW, 0x0300))
refused('raw IP socket', lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))
refused('AF_ALG socket', lambda: socket.socket(38, socket.SOCK_SEQPACKET))
params = ctypes.create_string_buffer(120)
r, e = sc(SYS['io_uring_setup'], 4, params)
if r >= 0:
    bad.append('io_uring_setup worked')
# What the code needs still works.
a, b = socket.socketpair(); a.close(); b.close()
s = socket.socket(); s.close()
for line in bad:
    print('BROKEN', line)
if not bad:
    print('HELD')
`

const probeSignals = `
import os, signal, sys, time
print('PRINTED-BEFORE', flush=True)
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGCHLD):
    try:
        os.kill(1, s)
    except OSError as e:
        print('kill', s, e)
    time.sleep(0.05)
time.sleep(0.3)
print('AFTER', flush=True)
`

const probeHostFacts = `
import os
bad = []
mi = open('/proc/self/mountinfo').read()
for word in ('WORKDIR', os.path.basename('WORKDIR')):
    if word and word in mi:
        bad.append('the mount table names the input\'s host folder %s' % word)
hn = 'HOSTNAME'
for line in open('/etc/hosts'):
    f = line.split('#')[0].split()
    if not f:
        continue
    for name in f[1:]:
        if name not in ('localhost', 'ip6-localhost', 'ip6-loopback', 'sandbox'):
            bad.append('/etc/hosts names %s (%s)' % (name, f[0]))
    if f[0] not in ('127.0.0.1', '::1', '127.0.1.1'):
        bad.append('/etc/hosts holds address %s' % f[0])
if hn not in ('', 'localhost', 'sandbox') and hn in open('/etc/hosts').read():
    bad.append('/etc/hosts names the host %s' % hn)
try:
    rc = open('/etc/resolv.conf').read()
    if any(l.split()[:1] in (['nameserver'], ['search'], ['domain']) for l in rc.splitlines()):
        bad.append('/etc/resolv.conf holds %r' % rc.strip()[:200])
except OSError:
    pass
for line in bad:
    print('BROKEN', line)
if not bad:
    print('HELD')
`
