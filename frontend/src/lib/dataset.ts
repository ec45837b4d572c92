// The preview of a dropped data file, as backend/dataset returns it, and
// the words the UI shows for it.
import { bytes, count, roughCount } from './format';
import type { dataset } from './gen/api.gen';

export type Format = dataset.Format;
export type ColumnType = dataset.Type;
export type Column = dataset.Column;
export type Preview = dataset.Preview;




export const typeLabels: Record<ColumnType, string> = {
  int: 'whole number',
  float: 'number',
  bool: 'yes / no',
  date: 'date',
  datetime: 'date & time',
  text: 'text',
  empty: 'empty',
};

export const formatLabels: Record<Format, string> = {
  csv: 'CSV',
  tsv: 'TSV (tab-separated)',
  json: 'JSON',
  jsonl: 'JSON Lines',
  xlsx: 'Excel workbook',
  parquet: 'Parquet',
  text: 'Text',
  binary: 'Not a data file',
};

/** "1,234 rows", "about 34.7 million rows", "at least 20 rows". */
export function rowsText(p: Pick<Preview, 'row_count' | 'row_count_kind'>): string {
  const n = p.row_count;
  const noun = n === 1 ? 'row' : 'rows';
  switch (p.row_count_kind) {
    case 'exact':
      return `${count(n)} ${noun}`;
    case 'estimate':
      return `about ${roughCount(n)} ${noun}`;
    default:
      return `at least ${count(n)} ${noun}`;
  }
}

const delimiterNames: Record<string, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab', '|': 'pipe' };

/** One line about the file: "CSV · 2 GiB · about 34.7 million rows · 8 columns". */
export function summary(p: Preview): string {
  const parts = [formatLabels[p.format] ?? p.format];
  if (p.compression) parts[0] += ` (${p.compression})`;
  if (p.format === 'csv' && p.delimiter && p.delimiter !== ',') parts[0] += `, ${delimiterNames[p.delimiter] ?? p.delimiter}-separated`;
  parts.push(bytes(p.size));
  if (p.format !== 'binary') {
    parts.push(rowsText(p));
    if (p.columns.length) parts.push(`${p.columns.length} ${p.columns.length === 1 ? 'column' : 'columns'}`);
  }
  if (p.sheet) parts.push(`sheet “${p.sheet}”`);
  if (p.encoding && p.encoding !== 'utf-8') parts.push(p.encoding);
  return parts.join(' · ');
}

/** Whether the sandbox can analyse this file at all. */
export function analysable(p: Preview): boolean {
  return p.format !== 'binary';
}

/** Numeric columns (for histograms and correlations). */
export function numericColumns(p: Preview): Column[] {
  return p.columns.filter((c) => c.type === 'int' || c.type === 'float');
}
