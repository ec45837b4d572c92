// The "broken details" of issue 20 that a unit test can hold.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analysis } from './analyses';
import type { Preview } from './dataset';
import { openingForm } from './audit';
import type { AuditRecord } from './audit';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (n === 'gen' || n === 'node_modules') return [];
    return statSync(p).isDirectory() ? files(p) : /\.(svelte|ts|css)$/.test(n) && !n.endsWith('.test.ts') ? [p] : [];
  });
}

describe('broken details', () => {
  it('no full-width forms (＋ －, U+FF00–FFEF) in the UI: they show as boxes with DejaVu only', () => {
    const bad = files(join(__dirname, '..')).filter((f) => /[\uFF00-\uFFEF]/.test(readFileSync(f, 'utf8')));
    expect(bad).toEqual([]);
  });

  it('the group-by plot says "1 row", "2 rows"', () => {
    const p: Preview = {
      path: '/tmp/s.csv', name: 's.csv', size: 10, format: 'csv', delimiter: ',', encoding: 'utf-8', header: true,
      columns: [{ name: 'region', type: 'text', empty: 0 }, { name: 'units', type: 'int', empty: 0 }],
      rows: [['East', '1'], ['East', '2'], ['West', '3']], row_count: 3, row_count_kind: 'exact', problems: [], read_bytes: 10,
    } as unknown as Preview;
    const line = analysis('groupby').code(p).split('\n').find((l) => l.includes('ax.text('))!;
    const fstr = line.match(/f"[^"]*"/)![0];
    const out = execFileSync('/usr/bin/python3', ['-c', `for n in (1, 2, 1234):\n    print(${fstr})`], { encoding: 'utf8' });
    expect(out.split('\n').map((s) => s.trim())).toEqual(['1 row', '2 rows', '1,234 rows', '']);
  });
});

describe('the Audit screen opens with ticks that match', () => {
  const as = (id: string, created: string) => ({ id, created });
  const rec = (ids: string[], created: string) =>
    ({ created, request: { assistant_ids: ids, all: false, features: [], detect: true, vram_bytes: null, ram_bytes: null, air_gapped: false, data_must_stay_local: false, hours_available: null, hourly_value: 50, subscription_per_month: 20 } }) as unknown as AuditRecord;

  it('ticks the newest assistant when there is no audit yet', () => {
    expect(openingForm([as('a', '2026-01-01T00:00:00Z'), as('b', '2026-02-01T00:00:00Z')], null).assistantIds).toEqual(['b']);
  });
  it("ticks the shown result's assistants, and one made since", () => {
    const f = openingForm([as('a', '2026-01-01T00:00:00Z'), as('new', '2026-03-01T00:00:00Z')], rec(['a'], '2026-02-01T00:00:00Z'));
    expect(f.assistantIds).toEqual(['a', 'new']);
  });
  it('drops a deleted assistant from the ticks', () => {
    expect(openingForm([as('a', '2026-01-01T00:00:00Z')], rec(['a', 'gone'], '2026-02-01T00:00:00Z')).assistantIds).toEqual(['a']);
  });
});

describe('the Audit screen opens with the rest of the form fresh', () => {
  it('keeps only the ticks of the shown result', () => {
    const r = { created: '2026-02-01T00:00:00Z', request: { assistant_ids: ['a'], all: false, features: [], detect: false, vram_bytes: 8 * 2 ** 30, ram_bytes: null, air_gapped: true, data_must_stay_local: false, hours_available: null, hourly_value: 50, subscription_per_month: 20 } } as unknown as AuditRecord;
    const f = openingForm([{ id: 'a', created: '2026-01-01T00:00:00Z' }], r);
    expect(f.assistantIds).toEqual(['a']);
    expect(f.airGapped).toBe(false);
    expect(f.detect).toBe(true);
    expect(f.vramGiB).toBe('');
  });
});

describe('audit reasons with code', () => {
  it('show `rehome run` as code, apart from the link after it', async () => {
    const { inlineMarkdown } = await import('./markdown');
    const d = document.createElement('div');
    // As Audit.svelte writes it: the reason, a space, the link.
    d.innerHTML = inlineMarkdown("rehome's sandbox: drop a file on the Code Interpreter screen or run `rehome run`") + ' <a href="#/code">Open it in rehome</a>';
    expect(d.querySelector('code')?.textContent).toBe('rehome run');
    expect(d.textContent).toBe("rehome's sandbox: drop a file on the Code Interpreter screen or run rehome run Open it in rehome");
    expect(d.innerHTML).not.toContain('`');
  });
});
