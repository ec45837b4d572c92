/// <reference types="node" />
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyses, analysis, categoryColumn, measureColumns, py, readCode, sampleRows } from './analyses';
import type { Preview } from './dataset';

function preview(over: Partial<Preview> = {}): Preview {
  return {
    name: 'sales.csv',
    path: '/home/me/sales.csv',
    size: 2048,
    modified: '2024-01-01T00:00:00Z',
    format: 'csv',
    delimiter: ',',
    encoding: 'utf-8',
    header: true,
    columns: [
      { name: 'order_id', type: 'int', empty: 0 },
      { name: 'day', type: 'date', empty: 0 },
      { name: 'region', type: 'text', empty: 0 },
      { name: 'units', type: 'int', empty: 0 },
      { name: 'price', type: 'float', empty: 1 },
      { name: 'note', type: 'text', empty: 0 },
    ],
    rows: [
      ['1', '2024-01-01', 'North', '3', '9.5', 'first'],
      ['2', '2024-01-02', 'South', '4', '', 'second'],
      ['3', '2024-01-03', 'North', '5', '7.25', 'third'],
      ['4', '2024-01-04', 'East', '1', '3', 'fourth'],
    ],
    row_count: 4,
    row_count_kind: 'exact',
    problems: [],
    read_bytes: 2048,
    ...over,
  };
}

// The generated code must at least be valid Python: parse it with the
// machine's python3 (the sandbox runs it for real in the e2e tests). One
// interpreter checks every snippet of a test; /usr/bin/python3 avoids the
// slow start of version-manager shims.
const pythonBin = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const checker = `
import ast, json, sys
for i, src in enumerate(json.load(sys.stdin)):
    try:
        ast.parse(src)
    except SyntaxError as e:
        print(f"snippet {i}: {e}")
        print(src)
        sys.exit(1)
`;
function assertPython(...codes: string[]) {
  try {
    execFileSync(pythonBin, ['-c', checker], { input: JSON.stringify(codes), stdio: ['pipe', 'pipe', 'pipe'], timeout: 20000 });
  } catch (e: any) {
    throw new Error(`not valid Python: ${String(e.stdout ?? '')}${String(e.stderr ?? '')} ${e.message}`);
  }
}

describe('readCode', () => {
  it('reads a plain CSV with its dates parsed', () => {
    expect(readCode(preview())).toBe(
      'import pandas as pd\n\npath = "/mnt/data/sales.csv"\ndf = pd.read_csv(path, parse_dates=["day"])',
    );
  });
  it('passes the separator, encoding and missing header on', () => {
    const code = readCode(preview({ delimiter: ';', encoding: 'cp1252', header: false, columns: [] }));
    expect(code).toContain('sep=";"');
    expect(code).toContain('encoding="cp1252"');
    expect(code).toContain('header=None');
    assertPython(code);
    expect(readCode(preview({ format: 'tsv', delimiter: '\t', columns: [] }))).toContain('sep="\\t"');
  });
  it('reads workbooks, Parquet, JSON and JSON Lines', () => {
    expect(readCode(preview({ format: 'xlsx', sheet: 'Q1 "final"', name: 'b.xlsx' }))).toContain(
      'pd.read_excel(path, sheet_name="Q1 \\"final\\"")',
    );
    expect(readCode(preview({ format: 'parquet' }))).toContain('pd.read_parquet(path)');
    expect(readCode(preview({ format: 'json' }))).toContain('pd.read_json(path)');
    expect(readCode(preview({ format: 'jsonl' }))).toContain('pd.read_json(path, lines=True)');
    const obj = readCode(preview({ format: 'json', note: 'This JSON file is one object, not a list of records' }));
    expect(obj).toContain('json.load(f)');
    assertPython(obj);
  });
  it('quotes odd file names safely', () => {
    const name = 'q1 "final" \\ $(rm -rf) ünïcode.csv';
    const code = readCode(preview({ name }));
    expect(code).toContain(`path = ${py('/mnt/data/' + name)}`);
    assertPython(code);
  });
  it('drops rows with extra values when pandas would refuse the file', () => {
    const code = readCode(
      preview({ problems: ["2 of the first 9 rows have more values than there are columns (the first is line 4). pandas refuses such a file: fix those lines, or read it with on_bad_lines='skip' to drop them."] }),
    );
    expect(code).toContain('on_bad_lines="skip"');
    assertPython(code);
  });
  it('samples rows of a file too large for the memory cap', () => {
    const big = preview({ size: 2 * 1024 ** 3, row_count: 34_733_751, row_count_kind: 'estimate' });
    expect(sampleRows(big)).toBe(600_000);
    const code = readCode(big);
    expect(code).toContain('nrows=600000');
    expect(code).toContain('Remove nrows=');
    assertPython(code);
    expect(sampleRows(preview())).toBe(0);
    expect(sampleRows({ ...big, compression: 'gzip' })).toBe(0);
  });
});

describe('column choice', () => {
  it('measures numbers but not identifiers', () => {
    expect(measureColumns(preview()).map((c) => c.name)).toEqual(['units', 'price']);
  });
  it('groups by a repeating text column', () => {
    expect(categoryColumn(preview())?.name).toBe('region');
    const unique = preview({ rows: preview().rows.map((r, i) => [r[0], r[1], `R${i}`, r[3], r[4], `n${i}`]) });
    expect(categoryColumn(unique)).toBeUndefined();
    // A region beats a yes/no column, and a column of one value is a last resort.
    const withBool = preview({
      columns: [...preview().columns, { name: 'returned', type: 'bool', empty: 0 }, { name: 'country', type: 'text', empty: 0 }],
      rows: preview().rows.map((r, i) => [...r, i % 2 ? 'true' : 'false', 'NO']),
    });
    expect(categoryColumn(withBool)?.name).toBe('region');
  });
});

describe('analyses', () => {
  it('each writes valid Python for a typical file', () => {
    const codes = analyses.map((a) => {
      expect(a.unavailable(preview()), a.id).toBe('');
      const code = a.code(preview());
      expect(code, a.id).toContain('/mnt/data/sales.csv');
      return code;
    });
    assertPython(...codes);
  }, 30000);
  it('plots with plt.show so rehome receives the figures', () => {
    for (const id of ['quicklook', 'histograms', 'correlation', 'groupby'] as const) {
      expect(analysis(id).code(preview())).toMatch(/plt\.show\(\)/);
    }
    expect(analysis('describe').code(preview())).not.toContain('plt');
  });
  it('say why they do not apply', () => {
    const noNumbers = preview({ columns: [{ name: 'region', type: 'text', empty: 0 }], rows: [['a'], ['a']] });
    expect(analysis('histograms').unavailable(noNumbers)).toMatch(/no number columns/);
    expect(analysis('correlation').unavailable(noNumbers)).toMatch(/two number columns/);
    expect(analysis('groupby').unavailable(noNumbers)).toMatch(/number column/);
    const binary = preview({ format: 'binary', columns: [], rows: [] });
    for (const a of analyses) expect(a.unavailable(binary)).not.toBe('');
  });
  it('show the lines of a text file', () => {
    const text = preview({ format: 'text', columns: [{ name: '0', type: 'text', empty: 0 }] });
    const code = analysis('quicklook').code(text);
    expect(code).toContain('splitlines');
    assertPython(code);
    expect(analysis('describe').unavailable(text)).toMatch(/no columns/);
  });
});
