// A run of code in the sandbox as the UI shows it: the result's shape
// (sandbox.Result), the exit reason in words, and the live status line.
import { withReadKey } from './api';
import { bytes, duration, seconds } from './format';
import type { sandbox } from './gen/api.gen';
import { analyses } from './analyses';
import type { Preview } from './dataset';

export type OutputFile = sandbox.File;
export type LimitStatus = sandbox.LimitStatus;
/** A run's result, or a session's cell (which carries more). */
export type RunResult = sandbox.Result & Partial<Omit<sandbox.CellResult, keyof sandbox.Result>>;
/** sandbox.Display: a shown value, like a Jupyter output. */
export type Display = sandbox.Display;
/** A stored run (sandbox.Record) as ListRuns returns it. */
export type RunRecord = sandbox.Record;





export type ExitKind = 'ok' | 'error' | 'timeout' | 'oom' | 'stopped' | 'failed';

export interface ExitReason {
  kind: ExitKind;
  text: string;
}

const signals: Record<number, string> = { 9: 'killed', 15: 'terminated', 11: 'a crash (segmentation fault)', 6: 'aborted' };

/** The last line of a Python traceback ("KeyError: 'price'"), or ''. */
export function errorLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  if (!stderr.includes('Traceback (most recent call last)')) return '';
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i].trim();
    if (l && !l.startsWith('File ') && !l.startsWith('^') && !l.startsWith('~')) return l;
  }
  return '';
}

function timeoutText(r: RunResult): string {
  const ms = r.limits?.timeout?.value;
  if (ms && ms > 0) return seconds(ms / 1000);
  return r.limits?.timeout?.asked ?? '';
}

function memoryText(r: RunResult): string {
  const b = r.limits?.memory?.value;
  if (b && b > 0) return bytes(b);
  return r.limits?.memory?.asked ?? '';
}

/** Why a run ended, in words: "Stopped at the 30 s limit", "Ran out of its 512 MiB memory". */
export function exitReason(r: RunResult, stoppedByUser = false, seenMs = 0): ExitReason {
  const took = duration(Math.max(r.duration_ms, seenMs));
  if (r.status === 'interrupted') {
    const lim = timeoutText(r);
    return { kind: r.timed_out ? 'timeout' : 'stopped', text: r.timed_out && lim ? `Interrupted at the ${lim} limit · state kept` : 'Interrupted · state kept' };
  }
  if (r.status === 'killed' || r.status === 'died') {
    return { kind: r.oom_killed ? 'oom' : 'failed', text: r.oom_killed ? 'Ran out of memory · state lost' : 'Kernel killed · state lost' };
  }
  if (r.timed_out) {
    const lim = timeoutText(r);
    return { kind: 'timeout', text: lim ? `Stopped at the ${lim} limit` : `Stopped at the time limit after ${took}` };
  }
  if (r.oom_killed) {
    const lim = memoryText(r);
    return { kind: 'oom', text: lim ? `Ran out of its ${lim} memory` : 'Ran out of memory' };
  }
  if (stoppedByUser) return { kind: 'stopped', text: `Stopped by you after ${took}` };
  if (r.exit_code === 0) return { kind: 'ok', text: `Finished in ${took}` };
  if (r.exit_code < 0) return { kind: 'failed', text: r.summary || 'The sandbox could not run the code' };
  if (r.exit_code > 128 && r.exit_code < 160) {
    const sig = r.exit_code - 128;
    if (sig === 9 && !r.stderr.includes('Traceback')) {
      // A SIGKILL that rehome did not send is most often the kernel's OOM killer.
      return { kind: 'error', text: `Killed after ${took} (signal 9: often a sign of running out of memory)` };
    }
    return { kind: 'error', text: `Ended by ${signals[sig] ?? `signal ${sig}`} after ${took}` };
  }
  const line = errorLine(r.stderr);
  if (line.startsWith('MemoryError')) {
    const lim = memoryText(r);
    return { kind: 'oom', text: lim ? `Ran out of its ${lim} memory (MemoryError)` : 'Ran out of memory (MemoryError)' };
  }
  if (line) return { kind: 'error', text: `Failed: ${line}` };
  return { kind: 'error', text: `Failed with exit code ${r.exit_code}` };
}

/** Plots to show inline, and the other files to save. */
export function splitOutputs(r: RunResult): { plots: OutputFile[]; files: OutputFile[] } {
  const all = r.files ?? [];
  const isImage = (f: OutputFile) => /\.(png|jpe?g|gif|webp)$/i.test(f.name);
  return {
    plots: all.filter((f) => f.kind === 'plot' || isImage(f)),
    files: all.filter((f) => !(f.kind === 'plot' || isImage(f))),
  };
}

/** The URL an <img> shows a plot from. */
export function fileURL(f: OutputFile, download = false): string {
  if (f.data_url && !download) return f.data_url;
  return withReadKey(`/api/file?path=${encodeURIComponent(f.path)}${download ? '&download=1' : ''}`);
}

/**
 * The live status line of a run from its stage (sandbox.Progress.Stage):
 * "Starting the sandbox…", "Running · 4.2 s of 30 s".
 */
export function phaseText(stage: string, elapsedMs: number, timeoutMs: number, message = ''): string {
  const of = timeoutMs > 0 ? ` of ${seconds(timeoutMs / 1000)}` : '';
  switch (stage) {
    case '':
    case 'queued':
    case 'starting':
      return 'Starting the sandbox…';
    case 'image':
      return message ? `Preparing the sandbox image: ${message}` : 'Preparing the sandbox image…';
    case 'running':
    case 'output':
      return `Running · ${duration(elapsedMs)}${of}`;
    case 'collecting':
      return 'Collecting outputs…';
    case 'stopping':
      return 'Stopping…';
    case 'done':
      return 'Finished';
    default:
      return message || `${stage[0].toUpperCase()}${stage.slice(1)}…`;
  }
}

/** A run as the notebook keeps it: the code, the file, the outcome. */
export interface Cell {
  key: string;
  /** The ready analysis it ran, or "Your code". */
  label: string;
  code: string;
  file: string;
  fileName: string;
  started: number;
  result?: RunResult;
  error?: string;
  stopped?: boolean;
  /** What the code printed so far, while it runs. */
  live?: string;
  /** A run from an earlier session, read from the history. */
  past?: boolean;
  /** How long the UI saw it run (the sandbox reports no time for a run it killed). */
  ranMs?: number;
  /** Ran in the file's session (its number there is result.cell). */
  session?: boolean;
}


/**
 * The earlier runs of the file p from the history (recs, newest first), as
 * cells in the order they ran, the newest 30, less those known (by run id);
 * each is labelled with the ready analysis whose code it ran, else "Your code".
 */
export function historyCells(recs: RunRecord[], p: Preview, known: Set<string>): Cell[] {
  return recs
    .filter((r) => r.result && (r.input_path === p.path || r.result.input?.host_path === p.path) && !known.has(r.id))
    .slice(0, 30)
    .reverse()
    .map((r) => ({
      key: r.id,
      label: analyses.find((a) => !a.unavailable(p) && a.code(p) === r.code)?.label ?? 'Your code',
      code: r.code,
      file: p.path,
      fileName: p.name,
      started: Date.parse(r.result!.started ?? '') || 0,
      result: r.result!,
      past: true,
    }));
}
