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
  message?: string;
  stream?: 'stdout' | 'stderr' | string;
  text?: string;
}

/** A copy of a limit in the units people use. */
export function timeoutMs(l: Pick<Limits, 'timeout_ns'>): number {
  return l.timeout_ns / 1e6;
}
