"""rehome session supervisor and kernel: PID 1 of a Code Interpreter
session container, and the Python that keeps the session's state.

The host starts a session container with

    python3 -I -S -B /opt/rehome/kernel.py CONFIG

(CONFIG: base64 of a JSON object, as for runner.py, plus the idle time and
the interrupt grace). This process is the supervisor: it makes itself
non-dumpable like the runner, spawns the kernel

    python3 -B /opt/rehome/kernel.py --kernel PRELOAD

as a child in its own session, and is the only process that holds the
container's stdin and stdout. The host writes one JSON request per line on
stdin (ASCII only: Podman's attach never sees a detach key):

    {"op": "exec", "nonce": N, "cell": n, "code": SRC, "timeout_ms": T}
    {"op": "interrupt"}                 the running cell gets SIGINT
    {"op": "restart", "nonce": N}       a fresh kernel (state lost)
    {"op": "ping", "nonce": N}
    {"op": "stop"}                      the session ends

and reads runner.py's frames on stdout, plus:

    B  begin      JSON {"nonce", "cell"}: the outputs of that cell follow
    X  cell end   JSON {"nonce", "cell", "status", "state_lost", …}
    R  reply      JSON {"nonce", "op", …} to restart and ping
    Q  quit       JSON {"reason"}: the session ends (idle, stopped)

Every output of a cell is framed by the supervisor between its B and X,
with the nonce the host chose for it: the kernel runs the code and so is
as untrusted as the code. It talks to the supervisor only through pipes
(stdout, stderr, a request pipe and a control pipe): whatever it writes
there is data, capped per cell, never a frame. A cell that does not answer
SIGINT within the grace is killed with its kernel, and the host is told
that the state is lost.

The end of a cell cannot be forged by its code: the kernel's "done" on its
control pipe is only a claim (the code runs in the kernel and can write it
too). The cell ends when the supervisor sees, in /proc/<kernel>/syscall,
the kernel's main thread blocked reading its request pipe; until then the
cell's clock and limit run on. The cell's time is the supervisor's own
clock. Between cells the kernel must be idle: when the threads a cell left
behind burn more than IDLE_CPU_BASE seconds of CPU (plus IDLE_CPU_SHARE of
the time since), the kernel is replaced and the next cell is told that the
state was lost.
"""

import base64
import json
import os
import selectors
import signal
import sys
import time

sys.path.insert(0, "/opt/rehome")  # -I leaves the script's folder off the path

import runner  # noqa: E402
from runner import CHUNK, DATA, DISPLAYS, PLOTS, WORK, Stream, diag, frame  # noqa: E402

LINE_MAX = 4 << 20


def kernel_main(preload):
    """The kernel: run cells in order in one namespace."""
    import builtins
    import linecache
    import traceback

    import prelude

    prelude.setup()
    sys.path[0] = os.getcwd()
    out_fd, err_fd = os.dup(1), os.dup(2)
    stdout, stderr = sys.stdout, sys.stderr
    requests = os.fdopen(3, "rb", buffering=0)
    # Processes a cell starts do not inherit the kernel's pipes to the
    # supervisor (and end with the cell anyway).
    os.set_inheritable(3, False)
    os.set_inheritable(4, False)
    for name in preload:
        try:
            __import__(name)
        except BaseException:  # an early interrupt must not end the kernel
            pass
    globs = {"__name__": "__main__", "__builtins__": builtins}
    skip = {prelude.__file__, __file__}

    def print_error():
        etype, value, tb = sys.exc_info()
        while tb is not None and tb.tb_frame.f_code.co_filename in skip:
            tb = tb.tb_next
        traceback.print_exception(etype, value, tb)

    def read_request():
        buf = b""
        while not buf.endswith(b"\n"):
            try:
                part = requests.readline()
            except KeyboardInterrupt:  # a late interrupt of the last cell
                continue
            if not part:
                return None
            buf += part
        return json.loads(buf)

    while True:
        try:
            msg = read_request()
            if msg is None:
                return
            # The cell's clock starts now, not while the kernel was still
            # importing its preload.
            os.write(4, (json.dumps({"start": msg["cell"]}) + "\n").encode())
            # A cell may have closed or replaced the streams: every cell
            # starts with the ones the supervisor reads.
            for fd, saved in ((1, out_fd), (2, err_fd)):
                try:
                    os.dup2(saved, fd)
                except OSError:
                    pass
            sys.stdout, sys.stderr = stdout, stderr
            name = "<cell %d>" % msg["cell"]
            source = msg["code"]
            linecache.cache[name] = (len(source), None, source.splitlines(True), name)
            status = "ok"
            try:
                prelude.run_cell(source, name, globs)
            except KeyboardInterrupt:
                print_error()
                status = "interrupted"
            except SystemExit as e:
                if e.code not in (None, 0):
                    print_error()
                    status = "error"
            except BaseException:
                print_error()
                status = "error"
            try:
                prelude._finish()
            except BaseException:
                pass
            for s in (sys.stdout, sys.stderr):
                try:
                    s.flush()
                except BaseException:
                    pass
            os.write(4, (json.dumps({"done": msg["cell"], "status": status}) + "\n").encode())
        except KeyboardInterrupt:
            try:
                os.write(4, b'{"done": -1, "status": "interrupted"}\n')
            except OSError:
                return


class Kernel:
    """The kernel process, seen from the supervisor."""

    def __init__(self, env, preload):
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        req_r, req_w = os.pipe()
        ctl_r, ctl_w = os.pipe()
        devnull = os.open("/dev/null", os.O_RDONLY)
        # Move the child's ends above the low numbers first, so that no dup2
        # below overwrites an end still to be placed.
        high = []
        for fd in (devnull, out_w, err_w, req_r, ctl_w):
            high.append(runner_fcntl_dup(fd))
            os.close(fd)
        argv = ["/usr/bin/python3", "-B", "/opt/rehome/kernel.py", "--kernel", json.dumps(preload)]
        os.chdir(DATA)
        self.pid = os.posix_spawn(
            argv[0],
            argv,
            env,
            file_actions=[(os.POSIX_SPAWN_DUP2, fd, i) for i, fd in enumerate(high)],
            setsid=True,
            # The supervisor ignores the signals the code could send it; the
            # kernel gets the default actions back (SIGINT interrupts a cell).
            setsigdef=[getattr(signal, n) for n in runner.UNDISTURBED],
        )
        for fd in high:
            os.close(fd)
        self.out, self.err, self.req, self.ctl = out_r, err_r, req_w, ctl_r
        for fd in (out_r, err_r, ctl_r):
            os.set_blocking(fd, False)
        self.ctl_buf = b""
        self.status = None  # wait status once it ended
        self.started = time.monotonic()

    def send(self, msg):
        data = (json.dumps(msg) + "\n").encode()
        try:
            runner.write_all(self.req, data)
            return True
        except OSError:
            return False

    def close(self):
        for fd in (self.out, self.err, self.req, self.ctl):
            try:
                os.close(fd)
            except OSError:
                pass


def runner_fcntl_dup(fd):
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100)


def kill_others(keep):
    """SIGKILL every process of the namespace but PID 1 and keep, and wait
    (a little) until they are dead, so that the next cell never sees them."""
    killed = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        if pid in (1, os.getpid(), keep):
            continue
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except OSError:
            pass
    deadline = time.monotonic() + 1.0
    while killed and time.monotonic() < deadline:
        alive = []
        for pid in killed:
            try:
                with open("/proc/%d/stat" % pid, "rb") as f:
                    state = f.read().rsplit(b")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state not in (b"Z", b"X"):
                alive.append(pid)
        killed = alive
        if killed:
            time.sleep(0.005)


def clear_dir(root):
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for e in entries:
        try:
            if e.is_dir(follow_symlinks=False):
                clear_dir(e.path)
                os.rmdir(e.path)
            else:
                os.unlink(e.path)
        except OSError:
            pass


# The kernel's read(2) of its request pipe (fd 3), per architecture.
READ_NR = {"x86_64": 0, "aarch64": 63}.get(os.uname().machine, 0)
# What the threads a cell left behind may burn between cells: a second of
# CPU, and one percent of the time since the cell ended.
IDLE_CPU_BASE = 1.0
IDLE_CPU_SHARE = 0.01
CLK_TCK = os.sysconf("SC_CLK_TCK")


def waiting_for_request(pid):
    """True when the kernel's main thread is blocked reading its request
    pipe: the one state in which its cell is over. The kernel runs the
    cell's code and may write anything on its control pipe; only this, read
    by the kernel's parent from /proc, says the code is no longer running
    there. False when it cannot be read (the code made the kernel
    non-dumpable): the cell then runs on to its limit."""
    try:
        with open("/proc/%d/syscall" % pid, "rb") as f:
            parts = f.read().split()
    except OSError:
        return False
    return len(parts) > 1 and parts[0] == str(READ_NR).encode() and int(parts[1], 16) == 3


def cpu_seconds(pid):
    """User and system CPU time of every thread of pid, in seconds."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return None


class Supervisor:
    def __init__(self, cfg, env):
        self.cfg = cfg
        self.env = env
        self.cg = runner.Cgroup()
        self.sel = selectors.DefaultSelector()
        self.kernel = None
        self.cell = None
        self.lost = ""  # why the state was lost since the last cell
        self.snapshot = {}
        self.idle = cfg.get("idle_ms", 0) / 1000.0
        self.grace = cfg.get("grace_ms", 2000) / 1000.0
        self.last = time.monotonic()
        self.inbuf = b""
        self.skipping = False
        self.stdin_open = True
        self.quit = None
        # Between cells: when the last cell ended and the kernel's CPU time
        # then (threads of a cell may keep running in the kernel).
        self.idle_since = None
        self.idle_cpu = None
        self.in_claim = False

    # -- the kernel --------------------------------------------------------

    def start_kernel(self):
        k = Kernel(self.env, self.cfg.get("preload", []))
        self.kernel = k
        self.idle_since = None  # a new kernel imports its preload
        self.sel.register(k.out, selectors.EVENT_READ, "out")
        self.sel.register(k.err, selectors.EVENT_READ, "err")
        self.sel.register(k.ctl, selectors.EVENT_READ, "ctl")

    def drop_kernel(self, why):
        k = self.kernel
        if k is None:
            return
        runner.kill_all()
        for fd in (k.out, k.err, k.ctl):
            try:
                self.sel.unregister(fd)
            except (KeyError, ValueError):
                pass
        if k.status is None:
            try:
                os.waitpid(k.pid, 0)
            except ChildProcessError:
                pass
        k.close()
        self.kernel = None
        self.reap()
        self.lost = why

    def reap(self):
        while True:
            try:
                pid, st = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if self.kernel is not None and pid == self.kernel.pid:
                self.kernel.status = st

    # -- requests ----------------------------------------------------------

    def read_stdin(self):
        try:
            data = os.read(0, CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        if not data:
            self.stdin_open = False
            self.sel.unregister(0)
            return
        self.inbuf += data
        while True:
            i = self.inbuf.find(b"\n")
            if i < 0:
                if len(self.inbuf) > LINE_MAX:
                    self.inbuf, self.skipping = b"", True
                return
            line, self.inbuf = self.inbuf[:i], self.inbuf[i + 1 :]
            if self.skipping:
                self.skipping = False
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                diag("a request that is not JSON")
                continue
            if isinstance(msg, dict):
                self.request(msg)

    def request(self, msg):
        self.last = time.monotonic()
        op = msg.get("op")
        nonce = str(msg.get("nonce", ""))
        if op == "exec":
            if self.cell is not None:
                frame(b"X", {"nonce": nonce, "cell": msg.get("cell"), "refused": "another cell is running"})
                return
            self.begin(msg, nonce)
        elif op == "interrupt":
            if self.cell is not None:
                self.cell["stopped"] = True
                self.interrupt()
        elif op == "restart":
            if self.cell is not None:
                self.cell["stopped"] = True
                self.finish("killed", "the kernel was restarted")
            self.drop_kernel("")
            self.start_kernel()
            self.lost = ""
            frame(b"R", {"nonce": nonce, "op": "restart"})
        elif op == "ping":
            frame(b"R", {"nonce": nonce, "op": "ping", "cell_running": self.cell is not None, "kernel": self.kernel is not None})
        elif op == "stop":
            self.quit = "stopped"

    # -- cells -------------------------------------------------------------

    def begin(self, msg, nonce):
        now = time.monotonic()
        timeout = max(0.1, msg.get("timeout_ms", 30000) / 1000.0)
        self.cell = {
            "nonce": nonce,
            "n": msg.get("cell"),
            "started": now,
            "timeout": timeout,
            # Set when the kernel takes the cell (it may still be importing
            # its preload): the begin frame goes out and the clock starts.
            "deadline": None,
            "pending_interrupt": False,
            "grace_at": None,
            "deadline_hit": False,
            "stopped": False,
            "out": Stream(b"O", self.cfg["stdout_max"]),
            "err": Stream(b"E", self.cfg["stderr_max"]),
            "rss_peak": 0,
            "watchdog": False,
            "oom_start": self.cg.oom_kills(),
            # The kernel ended between cells: this cell runs in a new one.
            "prior_lost": self.lost,
            # The kernel's "done": the cell ends once it is waiting again.
            "claimed": None,
        }
        self.lost = ""
        self.idle_since = None
        if self.kernel is None:
            self.start_kernel()
        if not self.kernel.send({"cell": msg.get("cell"), "code": msg.get("code", "")}):
            self.finish("died", "the kernel could not be reached")

    def started(self):
        """The kernel took the cell: the begin frame goes out (before any of
        its output) and its clock starts."""
        c = self.cell
        if c is None or c["deadline"] is not None:
            return
        now = time.monotonic()
        c["started"], c["deadline"] = now, now + c["timeout"]
        frame(b"B", {"nonce": c["nonce"], "cell": c["n"]})
        if c["pending_interrupt"]:
            self.interrupt()

    def interrupt(self):
        c = self.cell
        if c["deadline"] is None:
            c["pending_interrupt"] = True
            return
        if c["grace_at"] is None and self.kernel is not None:
            c["grace_at"] = time.monotonic() + self.grace
            try:
                os.kill(self.kernel.pid, signal.SIGINT)
            except OSError:
                pass

    def pump(self, which):
        k = self.kernel
        fd = k.out if which == "out" else k.err
        while True:
            try:
                data = os.read(fd, CHUNK)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data = b""
            if not data:
                try:
                    self.sel.unregister(fd)
                except (KeyError, ValueError):
                    pass
                return
            if self.cell is not None:
                # Output may be read before the kernel's "start" line.
                self.started()
                self.cell[which].feed(data)
            # Output between cells (a thread of an earlier cell) is dropped.

    def read_ctl(self):
        """Read the kernel's control lines; False when there was nothing."""
        k = self.kernel
        try:
            data = os.read(k.ctl, 4096)
        except (BlockingIOError, InterruptedError, OSError):
            return False
        if not data:
            try:
                self.sel.unregister(k.ctl)
            except (KeyError, ValueError):
                pass
            return False
        k.ctl_buf += data
        if len(k.ctl_buf) > 1 << 16:
            k.ctl_buf = k.ctl_buf[-4096:]
        while b"\n" in k.ctl_buf:
            line, k.ctl_buf = k.ctl_buf.split(b"\n", 1)
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            c = self.cell
            if c is None or not isinstance(msg, dict):
                continue
            if "start" in msg:
                if msg["start"] == c["n"]:
                    self.started()
                continue
            if msg.get("done") == c["n"] or (msg.get("done") == -1 and c["grace_at"] is not None):
                status = msg.get("status")
                if status not in ("ok", "error", "interrupted"):
                    status = "error"
                # A claim: the code may have written it itself. The cell
                # ends once the kernel waits for its next request.
                if c["claimed"] is None:
                    c["claimed_at"] = time.monotonic()
                c["claimed"] = status
                if not self.in_claim:
                    self.check_claim()
                    return True
        return True

    def check_claim(self):
        c = self.cell
        if c is None or c.get("claimed") is None or self.kernel is None:
            return
        if waiting_for_request(self.kernel.pid):
            # What the kernel wrote before it began to wait is in the pipe
            # now: its last word on the cell (after an interrupt, say)
            # counts, not an earlier claim.
            self.in_claim = True
            try:
                # At most a pipe's worth (64 KiB) was written before the wait.
                for _ in range(20):
                    if self.kernel is None or not self.read_ctl():
                        break
            finally:
                self.in_claim = False
            if self.cell is c:
                self.finish(c["claimed"], "")

    def finish(self, status, lost):
        c = self.cell
        k = self.kernel
        if k is not None and k.status is None:
            for which in ("out", "err"):
                self.pump(which)
            # What the cell started in the background ends with it, as at the
            # end of a one-shot run; the kernel itself stays.
            kill_others(k.pid)
        if lost:
            self.drop_kernel(lost)
        self.reap()
        frame_files(self.cfg, self.snapshot)
        result = {
            "nonce": c["nonce"],
            "cell": c["n"],
            "status": status,
            "interrupted": c["grace_at"] is not None and status == "interrupted",
            "stopped": c["stopped"],
            "deadline_killed": c["deadline_hit"],
            "state_lost": bool(lost),
            "lost_reason": lost,
            "watchdog_killed": c["watchdog"],
            "stdout_bytes": c["out"].total,
            "stderr_bytes": c["err"].total,
            "code_ms": int((time.monotonic() - c["started"]) * 1000),
            "memory_peak": self.cg.peak(),
            "rss_peak": c["rss_peak"],
            "exit_code": {"ok": 0, "error": 1, "interrupted": 130}.get(status, 137),
        }
        end = self.cg.oom_kills()
        if end is not None and c["oom_start"] is not None:
            result["oom_kills"] = end - c["oom_start"]
        if c["prior_lost"] and not lost:
            result["state_lost"] = True
            result["lost_reason"] = "before this cell, " + c["prior_lost"]
        self.lost = ""
        self.cell = None
        self.last = time.monotonic()
        if self.kernel is not None:
            self.idle_since, self.idle_cpu = self.last, cpu_seconds(self.kernel.pid)
        frame(b"X", result)

    def check_idle_cpu(self, now):
        """Between cells, the kernel should be idle: threads a cell started
        that keep burning CPU end with their kernel (the next cell is told
        the state was lost)."""
        if self.kernel is None or self.idle_since is None or self.idle_cpu is None:
            return
        used = cpu_seconds(self.kernel.pid)
        if used is None:
            return
        used -= self.idle_cpu
        if used > IDLE_CPU_BASE + IDLE_CPU_SHARE * (now - self.idle_since):
            self.idle_since = None
            self.drop_kernel("a thread an earlier cell started kept running after its cell ended (%.1fs of CPU), so its kernel was stopped" % used)
            why = self.lost
            self.start_kernel()
            self.lost = why

    def kernel_ended(self):
        k = self.kernel
        st = k.status
        if os.WIFSIGNALED(st):
            why = "the kernel was killed by signal %d" % os.WTERMSIG(st)
        else:
            why = "the kernel exited with status %d" % os.WEXITSTATUS(st)
        if self.cell is not None:
            for which in ("out", "err"):
                self.pump(which)
            self.finish("died", why)
        else:
            self.drop_kernel(why)

    # -- the loop ----------------------------------------------------------

    def run(self):
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        self.sel.register(wake_r, selectors.EVENT_READ, "wake")
        os.set_blocking(0, False)
        self.sel.register(0, selectors.EVENT_READ, "stdin")
        self.start_kernel()
        watch = self.cfg.get("memory_watchdog", 0)
        next_watch = time.monotonic()
        next_idle_check = next_watch
        while self.quit is None:
            now = time.monotonic()
            waits = []
            c = self.cell
            if c is not None:
                if c["grace_at"] is not None:
                    waits.append(c["grace_at"])
                elif c["deadline"] is not None:
                    waits.append(c["deadline"])
                if watch:
                    waits.append(next_watch)
                if c["claimed"] is not None:
                    # The kernel is about to read: look again soon, then
                    # less often (the code wrote the claim itself).
                    waits.append(now + (0.002 if now - c["claimed_at"] < 0.05 else 0.02))
            else:
                if self.idle:
                    waits.append(self.last + self.idle)
                if self.idle_since is not None:
                    waits.append(next_idle_check)
            timeout = max(0.0, min(waits) - now) if waits else None
            for key, _ in self.sel.select(timeout):
                what = key.data
                if what == "wake":
                    try:
                        os.read(wake_r, 512)
                    except BlockingIOError:
                        pass
                elif what == "stdin":
                    self.read_stdin()
                elif self.kernel is not None and key.fd in (self.kernel.out, self.kernel.err, self.kernel.ctl):
                    if what == "ctl":
                        self.read_ctl()
                    else:
                        self.pump(what)
            self.reap()
            if self.kernel is not None and self.kernel.status is not None:
                self.kernel_ended()
            now = time.monotonic()
            self.check_claim()
            c = self.cell
            if c is None and self.idle_since is not None and now >= next_idle_check:
                next_idle_check = now + 0.5
                self.check_idle_cpu(now)
            if c is not None:
                if watch and now >= next_watch:
                    next_watch = now + 0.05
                    rss = runner.total_rss()
                    c["rss_peak"] = max(c["rss_peak"], rss)
                    if rss > watch:
                        c["watchdog"] = True
                        self.finish("died", "the kernel used more than the memory ceiling and was killed")
                        continue
                if c["grace_at"] is not None and now >= c["grace_at"]:
                    self.finish("killed", "the cell did not stop within %gs of the interrupt; the kernel was killed" % self.grace)
                    self.start_kernel()
                elif c["grace_at"] is None and c["deadline"] is not None and now >= c["deadline"]:
                    c["deadline_hit"] = True
                    self.interrupt()
            elif self.idle and now >= self.last + self.idle:
                self.quit = "idle"
        frame(b"Q", {"reason": self.quit})
        runner.kill_all()


def frame_files(cfg, snapshot):
    """Send what the cell made: its plots and shown values (then removed),
    and the files under /mnt/data that are new or changed since the last
    cell."""
    seen = {}

    def select(path, kind, st):
        if kind != "file":
            return True
        sig = (st.st_ino, st.st_size, st.st_mtime_ns)
        seen[path] = sig
        return snapshot.get(path) != sig

    runner.collect(cfg, select)
    snapshot.clear()
    snapshot.update(seen)
    clear_dir(PLOTS)
    clear_dir(DISPLAYS)


def main():
    cfg = json.loads(base64.b64decode(sys.argv[1]))
    runner.hold_go(cfg)
    runner.undisturbable()
    runner.no_dump()
    cg = runner.Cgroup()
    frame(b"H", {"v": 1, "observed": runner.observe(cg), "session": True})
    if not runner.await_go(cfg):
        frame(b"Q", {"reason": "refused", "refused": runner.INPUT_LATE})
        return
    if not runner.input_unchanged(cfg):
        frame(b"Q", {"reason": "refused", "refused": runner.INPUT_CHANGED})
        return
    os.umask(0o077)
    runner.prepare_work(PLOTS, DISPLAYS)
    os.umask(0o022)
    env = runner.code_env(cfg)
    Supervisor(cfg, env).run()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--kernel":
        kernel_main(json.loads(sys.argv[2]) if len(sys.argv) > 2 else [])
    else:
        try:
            main()
        except BaseException as e:
            diag("%s: %s" % (type(e).__name__, e))
            sys.exit(70)
