import { describe, expect, it } from 'vitest';
import { rowsText, summary, type Preview } from './dataset';

const base: Preview = {
  name: 'big.csv', path: '/x/big.csv', size: 2 * 1024 ** 3, modified: '', format: 'csv', delimiter: ';',
  encoding: 'cp1252', header: true, columns: [{ name: 'a', type: 'int', empty: 0 }, { name: 'b', type: 'text', empty: 0 }],
  rows: [], row_count: 34_733_751, row_count_kind: 'estimate', problems: [], read_bytes: 1 << 20,
};

describe('dataset words', () => {
  it('says how sure the row count is', () => {
    expect(rowsText({ row_count: 1, row_count_kind: 'exact' })).toBe('1 row');
    expect(rowsText({ row_count: 1234, row_count_kind: 'exact' })).toBe('1,234 rows');
    expect(rowsText({ row_count: 34_733_751, row_count_kind: 'estimate' })).toBe('about 34.7 million rows');
    expect(rowsText({ row_count: 20, row_count_kind: 'at_least' })).toBe('at least 20 rows');
  });
  it('sums a file up in one line', () => {
    expect(summary(base)).toBe('CSV, semicolon-separated · 2 GiB · about 34.7 million rows · 2 columns · cp1252');
    expect(summary({ ...base, format: 'binary', columns: [], encoding: '', size: 10 })).toBe('Not a data file · 10 bytes');
    expect(summary({ ...base, format: 'xlsx', sheet: 'Sales', encoding: '', row_count: 30, row_count_kind: 'exact' })).toBe(
      'Excel workbook · 2 GiB · 30 rows · 2 columns · sheet “Sales”',
    );
  });
});
