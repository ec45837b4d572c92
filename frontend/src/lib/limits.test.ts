import { describe, expect, it } from 'vitest';
import { fromForm, problems, toForm, type Bounds } from './limits';
import { defaultLimits } from './sandbox';

const MiB = 2 ** 20;
const bounds: Bounds = {
  min: { ...defaultLimits, timeout_ns: 1e9, memory_bytes: 64 * MiB, cpus: 0.25, pids: 16, stdout_max_bytes: 16384, stderr_max_bytes: 16384, output_files: 1, output_bytes: MiB, tmp_bytes: 16 * MiB },
  max: { ...defaultLimits, timeout_ns: 3600e9, memory_bytes: 16384 * MiB, cpus: 2, pids: 4096, stdout_max_bytes: 64 * MiB, stderr_max_bytes: 64 * MiB, output_files: 1000, output_bytes: 4096 * MiB, tmp_bytes: 4096 * MiB },
};

describe('limits form', () => {
  it('shows the defaults in seconds and MiB', () => {
    expect(toForm(defaultLimits)).toEqual({
      timeout_s: 30, memory_mib: 512, cpus: 1, pids: 128, stdout_kib: 1024, stderr_kib: 1024, output_files: 64, output_mib: 64, tmp_mib: 128,
    });
  });
  it('round-trips', () => {
    expect(fromForm(toForm(defaultLimits))).toEqual(defaultLimits);
    expect(fromForm({ ...toForm(defaultLimits), timeout_s: 2.5 }).timeout_ns).toBe(2.5e9);
  });
  it('accepts the defaults and names what is out of range', () => {
    expect(problems(toForm(defaultLimits), bounds)).toEqual({});
    const p = problems({ ...toForm(defaultLimits), timeout_s: 0, memory_mib: 99999, cpus: NaN }, bounds);
    expect(p.timeout_s).toBe('At least 1 s.');
    expect(p.memory_mib).toBe('At most 16384 MiB on this machine.');
    expect(p.cpus).toBe('Enter a number.');
  });
  it('keeps in-memory folders within reach of the memory limit', () => {
    const p = problems({ ...toForm(defaultLimits), memory_mib: 64, output_mib: 200, tmp_mib: 100 }, bounds);
    expect(p.output_mib).toMatch(/within 256 MiB/);
  });
});
