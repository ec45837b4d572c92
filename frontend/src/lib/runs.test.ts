import { describe, expect, it } from 'vitest';
import { errorLine, exitReason, fileURL, historyCells, phaseText, splitOutputs, type RunRecord, type RunResult } from './runs';
import { analysis } from './analyses';
import type { Preview } from './dataset';

function result(over: Partial<RunResult> = {}): RunResult {
  return {
    id: 'r1',
    exit_code: 0,
    timed_out: false,
    oom_killed: false,
    duration_ms: 1234,
    stdout: '',
    stderr: '',
    stdout_truncated: false,
    stderr_truncated: false,
    files: [],
    limits: {
      timeout: { asked: '30s', value: 30000, strength: 'held', how: '' },
      memory: { asked: '512 MiB', value: 512 * 1024 * 1024, strength: 'held', how: '' },
    } as RunResult['limits'],
    summary: '',
    started: '',
    image: '',
    runtime: '',
    rootless: false,
    ...over,
  };
}

const traceback = `Traceback (most recent call last):
  File "/tmp/.rehome/script.py", line 3, in <module>
    df["pricee"]
    ~~^^^^^^^^^^
KeyError: 'pricee'
`;

describe('exitReason', () => {
  it("says a session's cell was interrupted with its state kept, or that the state is lost", () => {
    expect(exitReason(result({ status: 'interrupted', timed_out: true, exit_code: 130 }))).toEqual({ kind: 'timeout', text: 'Interrupted at the 30 s limit · state kept' });
    expect(exitReason(result({ status: 'interrupted', exit_code: 130 }))).toEqual({ kind: 'stopped', text: 'Interrupted · state kept' });
    expect(exitReason(result({ status: 'killed', exit_code: 137, state_lost: true }))).toEqual({ kind: 'failed', text: 'Kernel killed · state lost' });
    expect(exitReason(result({ status: 'died', exit_code: 137, oom_killed: true, state_lost: true }))).toEqual({ kind: 'oom', text: 'Ran out of memory · state lost' });
  });
  it('says a run finished', () => {
    expect(exitReason(result())).toEqual({ kind: 'ok', text: 'Finished in 1.2 s' });
  });
  it('names the time limit', () => {
    expect(exitReason(result({ timed_out: true, exit_code: -1, duration_ms: 30100 }))).toEqual({
      kind: 'timeout',
      text: 'Stopped at the 30 s limit',
    });
  });
  it('names the memory cap', () => {
    expect(exitReason(result({ oom_killed: true, exit_code: 137 }))).toEqual({ kind: 'oom', text: 'Ran out of its 512 MiB memory' });
    expect(exitReason(result({ exit_code: 1, stderr: 'Traceback (most recent call last):\n  File "x"\nMemoryError\n' })).kind).toBe('oom');
  });
  it('says the user stopped it', () => {
    expect(exitReason(result({ exit_code: -1, duration_ms: 4200 }), true)).toEqual({ kind: 'stopped', text: 'Stopped by you after 4.2 s' });
    // A killed run may report no time of its own: the UI's clock stands in.
    expect(exitReason(result({ exit_code: -1, duration_ms: 300 }), true, 6100).text).toBe('Stopped by you after 6.1 s');
  });
  it('quotes the error of a failed script', () => {
    expect(errorLine(traceback)).toBe("KeyError: 'pricee'");
    expect(exitReason(result({ exit_code: 1, stderr: traceback }))).toEqual({ kind: 'error', text: "Failed: KeyError: 'pricee'" });
    expect(exitReason(result({ exit_code: 3 })).text).toBe('Failed with exit code 3');
    expect(exitReason(result({ exit_code: 139 })).text).toBe('Ended by a crash (segmentation fault) after 1.2 s');
  });
  it('passes the sandbox’s own sentence on when it could not run', () => {
    expect(exitReason(result({ exit_code: -1, summary: 'Podman is not installed: install it with apt-get install podman' })).text).toMatch(/Podman/);
  });
});

describe('outputs', () => {
  it('shows plots inline and lists other files', () => {
    const r = result({
      files: [
        { name: 'plot-001.png', kind: 'plot', size: 10, sha256: '', path: '/d/runs/r1/plot-001.png' },
        { name: 'summary.csv', kind: 'file', size: 5, sha256: '', path: '/d/runs/r1/summary.csv' },
        { name: 'chart.png', kind: 'file', size: 5, sha256: '', path: '/d/runs/r1/chart.png' },
      ],
    });
    const { plots, files } = splitOutputs(r);
    expect(plots.map((f) => f.name)).toEqual(['plot-001.png', 'chart.png']);
    expect(files.map((f) => f.name)).toEqual(['summary.csv']);
    expect(fileURL(plots[0])).toBe('/api/file?path=%2Fd%2Fruns%2Fr1%2Fplot-001.png');
    expect(fileURL({ ...plots[0], data_url: 'data:image/png;base64,AA' })).toBe('data:image/png;base64,AA');
    expect(fileURL(files[0], true)).toContain('&download=1');
    expect(splitOutputs(result({ files: null as unknown as [] }))).toEqual({ plots: [], files: [] });
  });
});

describe('phaseText', () => {
  it('counts the time against the limit', () => {
    expect(phaseText('running', 4200, 30000)).toBe('Running · 4.2 s of 30 s');
    expect(phaseText('output', 12000, 0)).toBe('Running · 12 s');
    expect(phaseText('starting', 0, 30000)).toBe('Starting the sandbox…');
    expect(phaseText('image', 0, 30000, 'importing rehome-sandbox')).toBe('Preparing the sandbox image: importing rehome-sandbox');
    expect(phaseText('collecting', 0, 30000)).toBe('Collecting outputs…');
    expect(phaseText('warming', 0, 0)).toBe('Warming…');
  });
});

describe('historyCells', () => {
  const p = {
    name: 'sales.csv',
    path: '/home/me/sales.csv',
    format: 'csv',
    columns: [
      { name: 'region', type: 'text', empty: 0 },
      { name: 'units', type: 'int', empty: 0 },
    ],
    rows: [['North', '3']],
    problems: [],
  } as unknown as Preview;
  const rec = (id: string, code: string, path = p.path, started = '2024-05-01T10:00:00Z'): RunRecord => ({
    schema: 1,
    id,
    code,
    input_path: path,
    source: 'ui',
    result: result({ id, started }),
  });

  it("keeps this file's runs not shown yet, oldest first, each named by the analysis whose code it ran", () => {
    const quick = analysis('quicklook').code(p);
    // ListRuns answers newest first.
    const recs = [rec('r3', 'print(3)'), rec('r2', quick), rec('other', 'x', '/home/me/other.csv'), rec('r1', 'print(1)', p.path, 'not a date')];
    const cells = historyCells(recs, p, new Set(['r3']));
    expect(cells.map((c) => [c.key, c.label, c.past])).toEqual([
      ['r1', 'Your code', true],
      ['r2', 'Quick look', true],
    ]);
    expect(cells[0].started).toBe(0);
    expect(cells[1].started).toBe(Date.parse('2024-05-01T10:00:00Z'));
    expect(cells[1]).toMatchObject({ file: p.path, fileName: 'sales.csv', code: quick });
  });

  it('keeps the newest 30, and none without a result', () => {
    const recs = Array.from({ length: 40 }, (_, i) => rec(`r${40 - i}`, `print(${i})`));
    recs.push({ ...rec('empty', 'x'), result: null });
    const cells = historyCells(recs, p, new Set());
    expect(cells.length).toBe(30);
    expect(cells[0].key).toBe('r11');
    expect(cells[29].key).toBe('r40');
  });
});
