// The Code Interpreter sandbox as the UI reaches it (app/sandbox.go):
// running code against a file, stopping it, its status and its limits.
import { call } from './api';
import type { RunResult } from './runs';

/** sandbox.Limits as JSON (the timeout in nanoseconds, sizes in bytes). */
export interface Limits {
  timeout_ns: number;
  memory_bytes: number;
  cpus: number;
  pids: number;
  stdout_max_bytes: number;
  stderr_max_bytes: number;
  output_files: number;
  output_bytes: number;
  tmp_bytes: number;
}

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

export interface RunRequest {
  code: string;
  input_path: string;
  limits?: Partial<Limits>;
}

/** Runs code against the file; resolves when the run has ended. */
export function runCode(req: RunRequest): Promise<RunResult> {
  return call<RunResult>('RunCode', { ...req, inline_plots: true });
}

/** Stops a run; it ends within a second. */
export function stopRun(id: string): Promise<void> {
  return call<void>('StopRun', id);
}

/** A progress event of a run (sandbox.Progress). */
export interface RunEvent {
  run_id: string;
  stage: string;
  elapsed_ms?: number;
  message?: string;
  stream?: 'stdout' | 'stderr' | string;
  text?: string;
}

/** A copy of a limit in the units people use. */
export function timeoutMs(l: Pick<Limits, 'timeout_ns'>): number {
  return l.timeout_ns / 1e6;
}

/** sandbox.ImageStatus */
export interface ImageStatus {
  image: string;
  recipe_digest?: string;
  present: boolean;
  size_bytes?: number;
  archive?: string;
  archive_present?: boolean;
  archive_size_bytes?: number;
  stale?: string[];
  fix?: string;
}

/** sandbox.Host: the Podman service and the kernel features it has. */
export interface Host {
  podman_version?: string;
  rootless?: boolean;
  cgroup_version?: string;
  cgroup_manager?: string;
  cgroup_controllers?: string[];
  kernel?: string;
  default_runtime?: string;
  seccomp?: boolean;
  service_started?: boolean;
}

/** What SandboxStatus answers: Podman found or not, the image, what the kernel enforces. */
export interface SandboxStatus {
  ready?: boolean;
  podman?: boolean;
  error?: string;
  install?: string;
  host?: Host | null;
  image?: ImageStatus | null;
  enforcement?: { memory?: boolean; pids?: boolean; cpu?: boolean } | null;
  runtime?: string;
}

/** One guarantee of the self-test (sandbox.Check). */
export interface Check {
  name: string;
  strength: 'held' | 'weaker' | 'not held' | string;
  detail: string;
}

/** sandbox.DoctorReport */
export interface DoctorReport {
  ok: boolean;
  summary: string;
  image?: string;
  runtime?: string;
  checks: Check[];
  /** Further facts: storage driver, runtimes that had to be avoided. */
  notes?: string[];
  duration_ms: number;
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

/** sandbox.SessionInfo: the file's live Python. */
export interface SessionInfo {
  id: string;
  input?: { host_path: string; path: string; size: number } | null;
  created: string;
  idle_timeout_ns: number;
}

/** Starts the file's session (or returns the one already running). */
export function startSession(path: string): Promise<SessionInfo> {
  return call<SessionInfo>('StartSession', path);
}

/** Runs a cell in the session; state is kept between cells. */
export function execCell(id: string, code: string, timeoutMs = 0): Promise<RunResult> {
  return call<RunResult>('ExecCell', id, code, timeoutMs);
}

/** KeyboardInterrupt to the running cell (the kernel is killed if it does not stop within 2 s). */
export function interruptSession(id: string): Promise<void> {
  return call<void>('InterruptSession', id);
}

/** A fresh kernel: variables are lost, files stay. */
export function restartSession(id: string): Promise<void> {
  return call<void>('RestartSession', id);
}

/** The session's cells as a notebook ("ipynb") or a Python file ("py"). */
export function exportSession(id: string, format: 'ipynb' | 'py'): Promise<string> {
  return call<string>('ExportSession', id, format);
}
