// The Code Interpreter sandbox as the UI reaches it (app/sandbox.go):
// running code against a file, stopping it, its status and its limits.
import * as api from './gen/api.gen';
import type { sandbox } from './gen/api.gen';
import type { RunResult } from './runs';

/** sandbox.Limits as JSON (the timeout in nanoseconds, sizes in bytes). */
export type Limits = sandbox.Limits;
export type ImageStatus = sandbox.ImageStatus;
/** sandbox.Host: the Podman service and the kernel features it has. */
export type Host = sandbox.Host;
/** What SandboxStatus answers: Podman found or not, the image, what the kernel enforces. */
export type SandboxStatus = sandbox.Status;
/** One guarantee of the self-test (sandbox.Check). */
export type Check = sandbox.Check;
export type DoctorReport = sandbox.DoctorReport;
/** sandbox.SessionInfo: the file's live Python. */
export type SessionInfo = sandbox.SessionInfo;
/** What the screen asks to run: code, the file, limits (the rest is Go's). */
export type RunRequest = api.Input<sandbox.RunRequest>;
/** A progress event of a run (sandbox.Progress). */
export type RunEvent = sandbox.Progress;


/** sandbox.DefaultLimits, for display before the backend answers. */
export const defaultLimits: Limits = {
  timeout_ns: 30e9,
  memory_bytes: 512 * 2 ** 20,
  cpus: 1,
  pids: 128,
  stdout_max_bytes: 2 ** 20,
  stderr_max_bytes: 2 ** 20,
  output_files: 64,
  output_bytes: 64 * 2 ** 20,
  tmp_bytes: 128 * 2 ** 20,
};


/** Runs code against the file; resolves when the run has ended. */
export function runCode(req: RunRequest): Promise<RunResult> {
  return api.RunCode({ ...req, inline_plots: true });
}

/** Stops a run; it ends within a second. */
export function stopRun(id: string): Promise<void> {
  return api.StopRun(id);
}


/** A copy of a limit in the units people use. */
export function timeoutMs(l: Pick<Limits, 'timeout_ns'>): number {
  return l.timeout_ns / 1e6;
}






const checkNames: Record<string, string> = {
  podman: 'Podman reachable',
  image: 'Sandbox image present',
  runtime: 'Hardened container runtime',
  doctor: 'Self-test set-up',
  filesystem: 'Only the dropped file is visible, read-only',
  network: 'No network',
  timeout: 'Wall-clock kill of the whole sandbox',
  memory: 'Memory ceiling',
  pids: 'Process cap (fork bombs)',
  cpu: 'CPU quota',
  'stdout flood': 'Printed output capped',
  outputs: 'Output files capped and checked',
  privileges: 'No privileges (no capabilities, no new privileges, seccomp)',
  keyring: 'No kernel keyring shared between runs',
  'user namespaces': 'No new user namespaces; one of its own per run',
  sockets: 'No vsock, packet or raw sockets, no io_uring',
  'pid 1': 'Signals from the code cannot stop the report',
  'host facts': 'Nothing about the host inside',
  storage: 'Container storage',
  leftovers: 'Nothing left behind',
};

/** A guarantee's name in the user's words. */
export function checkLabel(name: string): string {
  return checkNames[name] ?? name.charAt(0).toUpperCase() + name.slice(1).replace(/[_-]/g, ' ');
}

/** The strength of a guarantee in words. */
export function strengthLabel(s: string): string {
  return s === 'held' ? 'Held' : s === 'weaker' ? 'Weaker' : s === 'not held' ? 'Not held' : s;
}


/** Starts the file's session (or returns the one already running). */
export function startSession(path: string): Promise<SessionInfo> {
  return api.StartSession(path);
}

/** Runs a cell in the session; state is kept between cells. */
export function execCell(id: string, code: string, timeoutMs = 0): Promise<RunResult> {
  return api.ExecCell(id, code, timeoutMs);
}

/** KeyboardInterrupt to the running cell (the kernel is killed if it does not stop within 2 s). */
export function interruptSession(id: string): Promise<void> {
  return api.InterruptSession(id);
}

/** A fresh kernel: variables are lost, files stay. */
export function restartSession(id: string): Promise<void> {
  return api.RestartSession(id);
}

/** The session's cells as a notebook ("ipynb") or a Python file ("py"). */
export function exportSession(id: string, format: 'ipynb' | 'py'): Promise<string> {
  return api.ExportSession(id, format);
}
