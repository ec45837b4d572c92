// The sandbox's run limits as the Settings form edits them: seconds and
// MiB instead of nanoseconds and bytes, checked against the safe range the
// backend reports (RunLimitBounds) before they are sent.
import type { sandbox } from './gen/api.gen';
import type { Limits } from './sandbox';

export type Bounds = sandbox.LimitBounds;

const MiB = 2 ** 20;
const KiB = 2 ** 10;

export interface LimitsForm {
  timeout_s: number;
  memory_mib: number;
  cpus: number;
  pids: number;
  stdout_kib: number;
  stderr_kib: number;
  output_files: number;
  output_mib: number;
  tmp_mib: number;
}


export interface Field {
  key: keyof LimitsForm;
  label: string;
  unit: string;
  help: string;
}

/** The form's fields in display order. */
export const fields: Field[] = [
  { key: 'timeout_s', label: 'Time limit', unit: 's', help: 'Wall-clock time a run may take before the whole sandbox is killed.' },
  { key: 'memory_mib', label: 'Memory', unit: 'MiB', help: 'RAM for the code and its in-memory folders; no swap.' },
  { key: 'cpus', label: 'CPUs', unit: 'cores', help: 'CPU time per second the code may use.' },
  { key: 'pids', label: 'Processes', unit: '', help: 'Most processes and threads at once (stops fork bombs).' },
  { key: 'stdout_kib', label: 'Printed output', unit: 'KiB', help: 'What is kept of what the code prints; the rest is cut and marked.' },
  { key: 'stderr_kib', label: 'Error output', unit: 'KiB', help: 'What is kept of the error stream.' },
  { key: 'output_files', label: 'Output files', unit: 'files', help: 'Most files (plots included) taken back from a run.' },
  { key: 'output_mib', label: 'Output size', unit: 'MiB', help: 'Total size of the files taken back; also the size of /mnt/data.' },
  { key: 'tmp_mib', label: '/tmp size', unit: 'MiB', help: 'Scratch space in memory for the code.' },
];

const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;

export function toForm(l: Limits): LimitsForm {
  return {
    timeout_s: round(l.timeout_ns / 1e9, 3),
    memory_mib: round(l.memory_bytes / MiB),
    cpus: l.cpus,
    pids: l.pids,
    stdout_kib: round(l.stdout_max_bytes / KiB),
    stderr_kib: round(l.stderr_max_bytes / KiB),
    output_files: l.output_files,
    output_mib: round(l.output_bytes / MiB),
    tmp_mib: round(l.tmp_bytes / MiB),
  };
}

export function fromForm(f: LimitsForm): Limits {
  return {
    timeout_ns: Math.round(f.timeout_s * 1e9),
    memory_bytes: Math.round(f.memory_mib * MiB),
    cpus: f.cpus,
    pids: Math.round(f.pids),
    stdout_max_bytes: Math.round(f.stdout_kib * KiB),
    stderr_max_bytes: Math.round(f.stderr_kib * KiB),
    output_files: Math.round(f.output_files),
    output_bytes: Math.round(f.output_mib * MiB),
    tmp_bytes: Math.round(f.tmp_mib * MiB),
  };
}

/** The problem with each field that is out of range, in words; empty when all fit. */
export function problems(f: LimitsForm, b: Bounds): Partial<Record<keyof LimitsForm, string>> {
  const lo = toForm(b.min);
  const hi = toForm(b.max);
  const out: Partial<Record<keyof LimitsForm, string>> = {};
  for (const { key, unit } of fields) {
    const v = f[key];
    const u = unit ? ` ${unit}` : '';
    if (typeof v !== 'number' || !Number.isFinite(v)) out[key] = 'Enter a number.';
    else if (v < lo[key]) out[key] = `At least ${lo[key]}${u}.`;
    else if (v > hi[key]) out[key] = `At most ${hi[key]}${u} on this machine.`;
  }
  if (!out.output_mib && !out.tmp_mib && !out.memory_mib && f.output_mib + f.tmp_mib > f.memory_mib * 4) {
    out.output_mib = `Output size and /tmp live in memory: keep them within ${f.memory_mib * 4} MiB together, or raise Memory.`;
  }
  return out;
}
