"""rehome sandbox runner: PID 1 of every Code Interpreter container.

The host starts the container with

    python3 -I -S -B /opt/rehome/runner.py CONFIG SCRIPT...

where CONFIG is base64 of a JSON object (caps, the input file's name, the
memory watchdog's ceiling) and the SCRIPT arguments are base64 pieces of the
user's Python source. The runner runs that source in a child process, in
its own session, through prelude.py (ChatGPT compatibility: /mnt/data,
captured plots), and speaks to the host over the container's stdout only, in
frames:

    1 byte type | 4 bytes big-endian payload length | payload

    H  hello      JSON {"v": 1}
    O  stdout     bytes the code wrote to its stdout (capped)
    E  stderr     bytes the code wrote to its stderr (capped)
    F  file       JSON {"name", "kind": "file"|"plot", "size"} opens a file
    D  data       bytes of the file opened by the last F
    S  skipped    JSON {"name", "reason"}: an output the runner refused
    C  code done  JSON {}: the code has ended, outputs follow (the host
                  stops the wall clock of the code and gives the
                  collection a bounded time of its own)
    X  exit       JSON with the exit status and what was observed

When the host sends the input files over the connection (a team host's
Podman, which cannot see the host's paths: CONFIG has "await_ms"), they
arrive in /mnt/data only once the container runs (it is a tmpfs mounted at
start). The runner then holds SIGUSR2 blocked from its first instruction,
sends its hello, and waits for SIGUSR2 — the host's go, sent once every
file is in — before it checks the files (regular, of the sizes the host
sent) and runs anything.

The code never holds the container's stdout: its output reaches the runner
through pipes. The runner makes itself non-dumpable, so code running as the
same user cannot open /proc/1/fd/1 or ptrace it, and as PID 1 of the pid
namespace it cannot be killed from inside. Nothing here is trusted by the
host all the same: the host applies its own caps and name checks to every
frame, and any container can be killed from outside.
"""

import base64
import ctypes
import json
import os
import selectors
import signal
import stat
import struct
import sys
import time

DATA = "/mnt/data"
WORK = "/tmp/.rehome"
PLOTS = WORK + "/plots"
DISPLAYS = WORK + "/displays"
CHUNK = 64 * 1024
PAGE = os.sysconf("SC_PAGE_SIZE")


def write_all(fd, data):
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except InterruptedError:
            continue
        view = view[n:]


def frame(kind, payload):
    if isinstance(payload, str):
        payload = payload.encode("utf-8", "surrogateescape")
    elif isinstance(payload, dict):
        payload = json.dumps(payload, ensure_ascii=True).encode()
    write_all(1, kind + struct.pack(">I", len(payload)) + payload)


def diag(msg):
    try:
        write_all(2, ("rehome-runner: %s\n" % msg).encode("utf-8", "replace"))
    except OSError:
        pass


def no_dump():
    """PR_SET_DUMPABLE=0: /proc/1/{fd,mem,environ} and ptrace become
    unreachable for processes of the same user."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
            diag("prctl(PR_SET_DUMPABLE) failed: errno %d" % ctypes.get_errno())
    except OSError as e:
        diag("prctl unavailable: %s" % e)


def read_int_file(path, key=None):
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    if key is None:
        try:
            return int(text.split()[0])
        except (ValueError, IndexError):
            return None
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key:
            try:
                return int(parts[1])
            except ValueError:
                return None
    return None


class Cgroup:
    """What the kernel's memory controller reports about this container, as
    far as it is visible from inside (cgroup v1 or v2)."""

    def __init__(self):
        self.v2 = os.path.exists("/sys/fs/cgroup/cgroup.controllers")
        if self.v2:
            self.mem = "/sys/fs/cgroup"
        else:
            self.mem = "/sys/fs/cgroup/memory"
        self.oom_start = self.oom_kills()

    def oom_kills(self):
        if self.v2:
            return read_int_file(self.mem + "/memory.events", "oom_kill")
        return read_int_file(self.mem + "/memory.oom_control", "oom_kill")

    def peak(self):
        if self.v2:
            return read_int_file(self.mem + "/memory.peak")
        return read_int_file(self.mem + "/memory.max_usage_in_bytes")

    def observed(self):
        """The ceilings the kernel holds for this container (None: none)."""
        if self.v2:
            cpu = read_text("/sys/fs/cgroup/cpu.max").split()
            return {
                "cgroup_version": 2,
                "memory_limit": read_int_file("/sys/fs/cgroup/memory.max"),
                "swap_limit": read_int_file("/sys/fs/cgroup/memory.swap.max"),
                "pids_limit": read_int_file("/sys/fs/cgroup/pids.max"),
                "cpu_quota": int(cpu[0]) if cpu and cpu[0].isdigit() else None,
                "cpu_period": int(cpu[1]) if len(cpu) > 1 and cpu[1].isdigit() else None,
            }
        quota = read_int_file("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")
        return {
            "cgroup_version": 1,
            "memory_limit": read_int_file("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
            "swap_limit": read_int_file("/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes"),
            "pids_limit": read_int_file("/sys/fs/cgroup/pids/pids.max"),
            "cpu_quota": quota if quota is not None and quota > 0 else None,
            "cpu_period": read_int_file("/sys/fs/cgroup/cpu/cpu.cfs_period_us"),
        }


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def observe(cg):
    """What this process can see of its own confinement, for the host's
    report: cgroup ceilings, rlimits, identity, privileges."""
    import resource

    limits = {}
    for name in ("cpu", "data", "fsize", "nofile", "nproc", "core", "as", "stack"):
        soft, hard = resource.getrlimit(getattr(resource, "RLIMIT_" + name.upper()))
        limits[name] = [soft, hard]
    status = {}
    for line in read_text("/proc/self/status").splitlines():
        key, _, value = line.partition(":")
        if key in ("CapEff", "CapPrm", "CapBnd", "NoNewPrivs", "Seccomp"):
            status[key] = value.strip()
    nets = sorted(n for n in os.listdir("/sys/class/net")) if os.path.isdir("/sys/class/net") else []
    return {
        "cgroup": cg.observed(),
        "rlimits": limits,
        "uid": os.getuid(),
        "gid": os.getgid(),
        "status": status,
        "hostname": os.uname().nodename,
        "net_interfaces": nets,
    }


def total_rss():
    """Memory of every process in the pid namespace: the sum of their
    proportional set sizes (shared pages counted once overall), or of
    their resident sizes where smaps_rollup cannot be read."""
    total = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/smaps_rollup" % name, "rb") as f:
                for line in f:
                    if line.startswith(b"Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
                continue
        except (OSError, ValueError, IndexError):
            pass
        try:
            with open("/proc/%s/statm" % name, "rb") as f:
                total += int(f.read().split()[1]) * PAGE
        except (OSError, ValueError, IndexError):
            pass
    return total


def kill_all():
    """SIGKILL every process of the namespace but PID 1 (this runner)."""
    try:
        os.kill(-1, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Stream:
    def __init__(self, kind, cap):
        self.kind = kind
        self.cap = cap
        self.sent = 0
        self.total = 0

    def feed(self, data):
        self.total += len(data)
        room = self.cap - self.sent
        if room > 0:
            part = data[:room]
            self.sent += len(part)
            frame(self.kind, part)


def run_child(cfg, argv, env, started):
    """Run the code; return (status, watchdog_fired, deadline_hit,
    rss_peak, streams)."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    devnull = os.open("/dev/null", os.O_RDONLY)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)

    os.chdir(DATA)
    pid = os.posix_spawn(
        argv[0],
        argv,
        env,
        file_actions=[
            (os.POSIX_SPAWN_DUP2, devnull, 0),
            (os.POSIX_SPAWN_DUP2, out_w, 1),
            (os.POSIX_SPAWN_DUP2, err_w, 2),
        ],
        setsid=True,
        setsigdef=[getattr(signal, n) for n in UNDISTURBED],
    )
    for fd in (out_w, err_w, devnull):
        os.close(fd)

    streams = {out_r: Stream(b"O", cfg["stdout_max"]), err_r: Stream(b"E", cfg["stderr_max"])}
    sel = selectors.DefaultSelector()
    for fd in streams:
        sel.register(fd, selectors.EVENT_READ)
    sel.register(wake_r, selectors.EVENT_READ)

    watch = cfg.get("memory_watchdog", 0)
    watch_every = 0.05
    next_watch = time.monotonic()
    # The runner's own deadline, a little before the host's: the code is
    # killed here first so that what it made before the limit (plots
    # shown, files written) still comes back. The host's kill from outside
    # at the limit stays the guarantee.
    deadline_ms = cfg.get("deadline_ms", 0)
    deadline_at = started + deadline_ms / 1000.0 if deadline_ms else None
    deadline_hit = False
    status = None
    fired = False
    rss_peak = 0
    open_fds = set(streams)

    def reap():
        nonlocal status
        while True:
            try:
                p, st = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            if p == 0:
                return True
            if p == pid:
                status = st

    while open_fds or status is None:
        timeout = None
        now = time.monotonic()
        if status is None:
            waits = []
            if watch:
                waits.append(next_watch - now)
            if deadline_at is not None and not deadline_hit:
                waits.append(deadline_at - now)
            if waits:
                timeout = max(0.0, min(waits))
        else:
            timeout = 0.2
        for key, _ in sel.select(timeout):
            fd = key.fd
            if fd == wake_r:
                try:
                    os.read(wake_r, 512)
                except BlockingIOError:
                    pass
                continue
            try:
                data = os.read(fd, CHUNK)
            except InterruptedError:
                continue
            if data:
                streams[fd].feed(data)
            else:
                sel.unregister(fd)
                open_fds.discard(fd)
        had_main = status is not None
        reap()
        if status is not None and not had_main:
            # The code's main process is gone: end what it left behind
            # (double-forked daemons, background children) like the end
            # of a notebook cell, so nothing writes while outputs are read.
            kill_all()
        if watch and status is None and time.monotonic() >= next_watch:
            next_watch = time.monotonic() + watch_every
            rss = total_rss()
            rss_peak = max(rss_peak, rss)
            if rss > watch:
                fired = True
                diag("memory watchdog: %d bytes resident > ceiling %d: killing the code" % (rss, watch))
                kill_all()
        if deadline_at is not None and status is None and not deadline_hit and time.monotonic() >= deadline_at:
            deadline_hit = True
            kill_all()
        if status is not None and open_fds:
            kill_all()
    while reap():
        time.sleep(0.01)
    signal.set_wakeup_fd(-1)
    return status, fired, deadline_hit, rss_peak, streams


def send_file(path, rel, kind, st, budget):
    """Stream one regular file; the caller has checked it with lstat."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        frame(b"S", {"name": rel, "reason": "cannot open: %s" % e.strerror})
        return 0
    try:
        fst = os.fstat(fd)
        if not stat.S_ISREG(fst.st_mode) or (fst.st_dev, fst.st_ino) != (st.st_dev, st.st_ino):
            frame(b"S", {"name": rel, "reason": "changed while being read"})
            return 0
        size = fst.st_size
        if size > budget:
            frame(b"S", {"name": rel, "reason": "over the output size cap (%d bytes)" % size})
            return 0
        frame(b"F", {"name": rel, "kind": kind, "size": size})
        left = size
        while left > 0:
            data = os.read(fd, min(CHUNK, left))
            if not data:
                break
            frame(b"D", data)
            left -= len(data)
        if left > 0:  # shrank under us: pad so the announced size holds
            frame(b"D", b"\0" * left)
        return size
    finally:
        os.close(fd)


# How many directory entries the collection looks at in all, and in one
# folder, before it only counts: code that leaves 400,000 files in
# /mnt/data gets its first files back and a count of the rest, instead of a
# runner that lists everything and runs out of memory.
SCAN_MAX = 20000
SORT_MAX = 4096


def collect(cfg, select=None):
    """Send the outputs: plots first, then the values the code showed
    (display(), a last expression), then files under /mnt/data. select,
    when given, picks which of them to send (a session sends only what a
    cell made). The caps apply while walking: past the file count cap the
    walk only counts what it does not keep (up to SCAN_MAX entries looked
    at, then it stops)."""
    files_max = cfg["files_max"]
    state = {"count": 0, "bytes_left": cfg["files_bytes_max"], "scanned": 0, "over": 0, "unscanned": False}
    seen = {}

    def consider(path, rel, kind, st):
        if state["count"] >= files_max:
            state["over"] += 1
            return
        n = send_file(path, rel, kind, st, state["bytes_left"])
        if n or st.st_size == 0:
            state["count"] += 1
            state["bytes_left"] -= n

    def walk(root, prefix, kind, depth, dev):
        try:
            it = os.scandir(root)
        except OSError as e:
            frame(b"S", {"name": prefix or ".", "reason": "cannot list: %s" % e.strerror})
            return
        with it:
            # A bounded batch is read and sorted (stable names for the
            # usual few files); a huge folder is read on in its own order.
            batch = []
            for e in it:
                batch.append(e)
                if len(batch) >= SORT_MAX:
                    break
            batch.sort(key=lambda e: e.name)
            entries = batch
            rest = it
            for e in _chain(entries, rest):
                if state["scanned"] >= SCAN_MAX:
                    state["unscanned"] = True
                    return
                state["scanned"] += 1
                visit(e, prefix, kind, depth, dev)

    def visit(e, prefix, kind, depth, dev):
        rel = prefix + e.name
        if kind == "file" and prefix == "" and e.name in input_names(cfg):
            return
        if state["count"] >= files_max:
            # Past the cap nothing more is sent: count files, walk folders.
            try:
                if e.is_dir(follow_symlinks=False):
                    if depth < 8:
                        walk(e.path, rel + "/", kind, depth + 1, dev)
                    return
            except OSError:
                return
            if select is not None:
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    return
                if not stat.S_ISREG(st.st_mode) or not select(e.path, kind, st):
                    return
            state["over"] += 1
            return
        try:
            st = e.stat(follow_symlinks=False)
        except OSError:
            return
        if stat.S_ISLNK(st.st_mode):
            frame(b"S", {"name": rel, "reason": "symbolic link (links are never followed)"})
        elif stat.S_ISDIR(st.st_mode):
            if st.st_dev != dev:
                frame(b"S", {"name": rel, "reason": "another file system"})
            elif depth >= 8:
                frame(b"S", {"name": rel, "reason": "folders nested too deep"})
            else:
                walk(e.path, rel + "/", kind, depth + 1, dev)
        elif stat.S_ISREG(st.st_mode):
            if st.st_dev != dev:
                frame(b"S", {"name": rel, "reason": "another file system"})
                return
            key = (st.st_dev, st.st_ino)
            if key in seen:
                frame(b"S", {"name": rel, "reason": "hard link to %s" % seen[key]})
                return
            seen[key] = rel
            if select is None or select(e.path, kind, st):
                consider(e.path, rel, kind, st)
        else:
            frame(b"S", {"name": rel, "reason": "not a regular file (%s)" % filetype(st.st_mode)})

    for root, kind in ((PLOTS, "plot"), (DISPLAYS, "display"), (DATA, "file")):
        try:
            dev = os.stat(root, follow_symlinks=False).st_dev
        except OSError:
            continue
        walk(root, "", kind, 0, dev)
    if state["over"] or state["unscanned"]:
        reason = "%d more not kept: over the output count cap (%d files)" % (state["over"], files_max)
        if state["unscanned"]:
            reason += "; counting stopped after %d entries, so there are more" % SCAN_MAX
        frame(b"S", {"name": "…", "reason": reason})


def _chain(first, rest):
    for e in first:
        yield e
    for e in rest:
        yield e


def filetype(mode):
    for test, name in (
        (stat.S_ISFIFO, "named pipe"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
    ):
        if test(mode):
            return name
    return "unknown type"


# Signals the code could send to PID 1. The kernel already drops those
# left at their default action; the runner ignores the rest it would
# otherwise act on (Python turns SIGINT into KeyboardInterrupt), so nothing
# the code sends ends the runner and loses the report. The code gets them
# back at their defaults.
UNDISTURBED = [
    s
    for s in (
        "SIGINT",
        "SIGTERM",
        "SIGHUP",
        "SIGQUIT",
        "SIGUSR1",
        "SIGUSR2",
        "SIGALRM",
        "SIGVTALRM",
        "SIGPROF",
        "SIGTRAP",
        "SIGPIPE",
        "SIGXCPU",
        "SIGXFSZ",
        "SIGIO",
        "SIGPWR",
        "SIGTSTP",
        "SIGTTIN",
        "SIGTTOU",
        "SIGURG",
        "SIGWINCH",
    )
    if hasattr(signal, s)
]


def undisturbable():
    for name in UNDISTURBED:
        try:
            signal.signal(getattr(signal, name), signal.SIG_IGN)
        except (OSError, ValueError):
            pass


INPUT_CHANGED = "the input file changed between its check and the start of the container"
INPUT_LATE = "the input files did not arrive in time"
GO = signal.SIGUSR2


def hold_go(cfg):
    """Block the host's go signal before the hello, so that a go sent once
    the hello is seen is never lost (PID 1 drops signals it has no handler
    for, unless they are blocked)."""
    if cfg.get("await_ms"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {GO})


def await_go(cfg):
    """Wait for the host's go (its inputs are in /mnt/data); False when it
    does not come in time. The code inherits no blocked signal."""
    if not cfg.get("await_ms"):
        return True
    got = signal.sigtimedwait({GO}, cfg["await_ms"] / 1000.0)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {GO})
    return got is not None


def input_names(cfg):
    """The names of the input files under /mnt/data (not outputs)."""
    names = {i["name"] for i in cfg.get("inputs") or ()}
    if cfg.get("input"):
        names.add(cfg["input"])
    return names


def input_unchanged(cfg):
    """The host bind-mounts the files it checked; the code must see those very
    files (same device and inode), not whatever the paths named by the time
    the container started.
    Files the host sent over the connection have no host inode: they must
    be regular files of the sizes it sent."""
    checks = [(i["name"], i.get("dev"), i.get("ino"), i.get("size")) for i in cfg.get("inputs") or ()]
    if cfg.get("input"):
        checks.append((cfg["input"], cfg.get("input_dev"), cfg.get("input_ino"), cfg.get("input_size")))
    for name, dev, ino, size in checks:
        try:
            st = os.stat(os.path.join(DATA, name), follow_symlinks=False)
        except OSError:
            return False
        if not stat.S_ISREG(st.st_mode):
            return False
        if cfg.get("await_ms"):
            if st.st_size != size:
                return False
        elif [st.st_dev, st.st_ino] != [dev, ino]:
            return False
    return True


def prepare_work(*dirs):
    """Make the runner's private folders and matplotlib's configuration."""
    for d in dirs + (WORK + "/mpl",):
        os.makedirs(d, exist_ok=True)
    try:
        for name in os.listdir("/opt/rehome/mpl"):
            with open("/opt/rehome/mpl/" + name, "rb") as src, open(WORK + "/mpl/" + name, "wb") as dst:
                dst.write(src.read())
    except OSError:
        pass


def code_env(cfg):
    """The code's whole environment: nothing of the container's own."""
    threads = str(cfg.get("threads", 1))
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": WORK + "/mpl",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OMP_NUM_THREADS": threads,
        "OPENBLAS_NUM_THREADS": threads,
        "MKL_NUM_THREADS": threads,
        "REHOME_PLOTS": PLOTS,
        "REHOME_DISPLAYS": DISPLAYS,
    }


def main():
    started = time.monotonic()
    cfg = json.loads(base64.b64decode(sys.argv[1]))
    hold_go(cfg)
    undisturbable()
    no_dump()
    source = b"".join(base64.b64decode(a) for a in sys.argv[2:])
    cg = Cgroup()
    frame(b"H", {"v": 1, "observed": observe(cg)})

    if not await_go(cfg):
        frame(b"X", {"refused": INPUT_LATE})
        return
    # The code's clock starts once its files are in.
    started = time.monotonic()
    if not input_unchanged(cfg):
        frame(b"X", {"refused": INPUT_CHANGED})
        return

    os.umask(0o077)
    prepare_work(PLOTS)
    script = WORK + "/script.py"
    with open(script, "wb") as f:
        f.write(source)
    os.umask(0o022)

    env = code_env(cfg)
    argv = ["/usr/bin/python3", "-B", "-S", "/opt/rehome/prelude.py", script]
    status, fired, deadline_hit, rss_peak, streams = run_child(cfg, argv, env, started)
    code_ms = int((time.monotonic() - started) * 1000)
    frame(b"C", {})

    # Outputs are read only after every process of the code is gone.
    collect(cfg)

    result = {
        "exit_code": None,
        "signal": None,
        "oom_kills": None,
        "memory_peak": cg.peak(),
        "rss_peak": rss_peak,
        "watchdog_killed": fired,
        "deadline_killed": deadline_hit,
        "stdout_bytes": streams_total(streams, b"O"),
        "stderr_bytes": streams_total(streams, b"E"),
        "code_ms": code_ms,
        "duration_ms": int((time.monotonic() - started) * 1000),
    }
    if status is not None:
        if os.WIFEXITED(status):
            result["exit_code"] = os.WEXITSTATUS(status)
        elif os.WIFSIGNALED(status):
            result["signal"] = os.WTERMSIG(status)
            result["exit_code"] = 128 + os.WTERMSIG(status)
    end = cg.oom_kills()
    if end is not None and cg.oom_start is not None:
        result["oom_kills"] = end - cg.oom_start
    frame(b"X", result)


def streams_total(streams, kind):
    for s in streams.values():
        if s.kind == kind:
            return s.total
    return 0


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:  # the host reports a runner failure as such
        diag("%s: %s" % (type(e).__name__, e))
        sys.exit(70)
