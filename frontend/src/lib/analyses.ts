// Ready analyses: Python that a user starts from, written for the file they
// dropped. The code reads /mnt/data/<name> as ChatGPT's Code Interpreter
// does, with pandas options that match what the preview found (separator,
// encoding, header, sheet, dates), and plots with matplotlib; plt.show()
// hands each figure to rehome as a PNG.
import type { Column, Preview } from './dataset';

export type AnalysisId = 'quicklook' | 'describe' | 'histograms' | 'correlation' | 'groupby';

export interface Analysis {
  id: AnalysisId;
  label: string;
  /** What it shows, for the button's title. */
  description: string;
  /** '' when it applies to the file, else why not (shown to the user). */
  unavailable: (p: Preview) => string;
  code: (p: Preview) => string;
}

/** Where the sandbox mounts the dropped file. */
export const DATA_DIR = '/mnt/data';

/** A Python string literal for s (JSON's escapes are valid Python). */
export function py(s: string): string {
  return JSON.stringify(s);
}

/** A Python list of string literals. */
export function pyList(items: string[]): string {
  return '[' + items.map(py).join(', ') + ']';
}

/** The path of the file inside the sandbox. */
export function sandboxPath(p: Pick<Preview, 'name'>): string {
  return `${DATA_DIR}/${p.name}`;
}

/** Above this size, the code reads a sample of rows so it fits the memory cap. */
export const SAMPLE_ABOVE = 100 * 1024 * 1024;
// pandas holds text columns at several times their size in the file: 40 MiB
// of rows stays well inside the default 512 MiB sandbox.
const SAMPLE_BUDGET = 40 * 1024 * 1024;

/** How many rows to read from a large text file, or 0 for all of them. */
export function sampleRows(p: Preview): number {
  if (p.size <= SAMPLE_ABOVE || p.compression || !['csv', 'tsv', 'jsonl'].includes(p.format)) return 0;
  if (p.row_count <= 0) return 0;
  const perRow = p.size / p.row_count;
  const n = Math.floor(SAMPLE_BUDGET / perRow);
  if (n >= p.row_count) return 0;
  // A round number: 1,000,000 rather than 1,048,576.
  const mag = 10 ** Math.floor(Math.log10(Math.max(n, 1)));
  return Math.max(1000, Math.floor(n / mag) * mag);
}

function dateColumns(p: Preview): string[] {
  return p.columns.filter((c) => c.type === 'date' || c.type === 'datetime').map((c) => c.name);
}

/** Python that loads the file into `df` (or `data` for one JSON object, `lines` for text). */
export function readCode(p: Preview): string {
  const path = py(sandboxPath(p));
  const args: string[] = ['path'];
  const enc = p.encoding && p.encoding !== 'utf-8' ? p.encoding : '';
  const dates = dateColumns(p);
  const lines = ['import pandas as pd', '', `path = ${path}`];
  const nrows = sampleRows(p);
  switch (p.format) {
    case 'xlsx':
      if (p.sheet) args.push(`sheet_name=${py(p.sheet)}`);
      if (!p.header) args.push('header=None');
      lines.push(`df = pd.read_excel(${args.join(', ')})`);
      break;
    case 'parquet':
      lines.push('df = pd.read_parquet(path)');
      break;
    case 'json':
      if (p.note?.includes('one object') || p.note?.includes('single value')) {
        lines.splice(0, 1, 'import json', 'import pandas as pd');
        lines.push(`with open(path${enc ? `, encoding=${py(enc)}` : ''}) as f:`, '    data = json.load(f)');
        lines.push('df = pd.json_normalize(data)');
      } else {
        if (enc) args.push(`encoding=${py(enc)}`);
        lines.push(`df = pd.read_json(${args.join(', ')})`);
      }
      break;
    case 'jsonl':
      args.push('lines=True');
      if (enc) args.push(`encoding=${py(enc)}`);
      if (nrows) args.push(`nrows=${nrows}`);
      lines.push(`df = pd.read_json(${args.join(', ')})`);
      break;
    case 'text':
      lines.push(`with open(path${enc ? `, encoding=${py(enc)}` : ''}) as f:`, '    lines = f.read().splitlines()');
      return lines.join('\n');
    default: {
      if (p.delimiter && p.delimiter !== ',') args.push(`sep=${p.delimiter === '\t' ? '"\\t"' : py(p.delimiter)}`);
      if (enc) args.push(`encoding=${py(enc)}`);
      if (!p.header) args.push('header=None');
      if (dates.length && p.header) args.push(`parse_dates=${pyList(dates)}`);
      if (p.problems.some((m) => m.includes("on_bad_lines='skip'") && m.includes('more values'))) {
        lines.push('# Some rows have more values than there are columns: on_bad_lines="skip" drops them.');
        args.push('on_bad_lines="skip"');
      }
      if (nrows) args.push(`nrows=${nrows}`);
      const call = `df = pd.read_csv(${args.join(', ')})`;
      lines.push(args.length > 3 ? `df = pd.read_csv(\n    ${args.join(',\n    ')},\n)` : call);
    }
  }
  if (nrows) {
    lines.push(
      `# The file is large: this reads its first ${nrows.toLocaleString('en-US')} rows to stay within`,
      '# the sandbox memory limit. Remove nrows= to read everything (raise the limit in Settings).',
    );
  }
  return lines.join('\n');
}

/** Columns worth measuring: numeric, and not an identifier or an index. */
export function measureColumns(p: Preview): Column[] {
  return p.columns.filter(
    (c) =>
      (c.type === 'int' || c.type === 'float') &&
      !/^unnamed: \d+$/i.test(c.name) &&
      !/(^|[_\s.-])(id|index|key|code|zip|postcode|phone)$/i.test(c.name) &&
      !/^(id|index|key)$/i.test(c.name),
  );
}

/**
 * A column to group by: text whose values repeat in the rows previewed
 * (a category such as a region), preferring few distinct values; a yes/no
 * column only when there is no such text column.
 */
export function categoryColumn(p: Preview): Column | undefined {
  let best: { c: Column; score: number } | undefined;
  p.columns.forEach((c, i) => {
    if (c.type !== 'text' && c.type !== 'bool') return;
    const values = p.rows.map((r) => r[i]).filter((v) => v !== undefined && v !== '');
    if (values.length < 2) return;
    const distinct = new Set(values).size;
    if (distinct === values.length && values.length > 3) return; // every value differs: a name or an id
    const score = (c.type === 'bool' || distinct < 2 ? 1000 : 0) + distinct;
    if (!best || score < best.score) best = { c, score };
  });
  return best?.c;
}

const tabular = (p: Preview) =>
  p.format === 'binary'
    ? 'This is not a data file.'
    : p.format === 'text'
      ? 'The file has no columns.'
      : '';

const plotStyle = 'import matplotlib.pyplot as plt\n';

export const analyses: Analysis[] = [
  {
    id: 'quicklook',
    label: 'Quick look',
    description: 'Size, column types, missing values and a histogram of each number column',
    unavailable: (p) => (p.format === 'binary' ? 'This is not a data file.' : ''),
    code(p) {
      if (p.format === 'text') {
        return `${readCode(p)}\n\nprint(f"{len(lines):,} lines")\nfor line in lines[:20]:\n    print(line)\n`;
      }
      const cols = measureColumns(p).slice(0, 6).map((c) => c.name);
      let code = `${readCode(p)}
${plotStyle}
pd.set_option("display.width", 160)
print(f"{len(df):,} rows × {len(df.columns)} columns\\n")
print(pd.DataFrame({"type": df.dtypes.astype(str), "missing": df.isna().sum()}).to_string())
`;
      if (cols.length) {
        code += `
cols = [c for c in ${pyList(cols)} if pd.api.types.is_numeric_dtype(df[c])]
if cols:
    fig, axes = plt.subplots(1, len(cols), figsize=(3.2 * len(cols) + 1, 3.4), squeeze=False)
    for ax, c in zip(axes[0], cols):
        ax.hist(df[c].dropna(), bins=30, color="#4a7cf5", edgecolor="white", linewidth=0.4)
        ax.set_title(c)
    fig.suptitle(${py(p.name)})
    plt.tight_layout()
    plt.show()
`;
      }
      return code;
    },
  },
  {
    id: 'describe',
    label: 'Describe',
    description: 'Summary statistics of every column: count, mean, spread, most common values',
    unavailable: tabular,
    code: (p) => `${readCode(p)}

pd.set_option("display.width", 160)
pd.set_option("display.max_columns", 50)
print(f"{len(df):,} rows × {len(df.columns)} columns\\n")

numbers = df.select_dtypes("number")
if not numbers.empty:
    print("Number columns")
    print(numbers.describe().T.to_string(), "\\n")

others = df.select_dtypes(exclude=["number", "datetime"])
if not others.empty:
    print("Other columns")
    print(others.describe().T.to_string(), "\\n")

dates = df.select_dtypes("datetime")
for c in dates.columns:
    print(f"{c}: {dates[c].min()} to {dates[c].max()}")

missing = df.isna().sum()
if missing.any():
    print("\\nMissing values")
    print(missing[missing > 0].to_string())
`,
  },
  {
    id: 'histograms',
    label: 'Histograms',
    description: 'The distribution of each number column',
    unavailable: (p) => tabular(p) || (measureColumns(p).length ? '' : 'The file has no number columns to plot.'),
    code(p) {
      const cols = measureColumns(p).slice(0, 12).map((c) => c.name);
      return `${readCode(p)}
import math
${plotStyle}
cols = [c for c in ${pyList(cols)} if pd.api.types.is_numeric_dtype(df[c])]
if not cols:
    raise SystemExit("No number columns to plot.")
ncols = min(3, len(cols))
nrows = math.ceil(len(cols) / ncols)
fig, axes = plt.subplots(nrows, ncols, figsize=(4.4 * ncols, 3.3 * nrows), squeeze=False)
for ax, c in zip(axes.flat, cols):
    values = df[c].dropna()
    ax.hist(values, bins=min(50, max(5, values.nunique())), color="#4a7cf5", edgecolor="white", linewidth=0.4)
    ax.set_title(c)
    ax.set_ylabel("rows")
for ax in axes.flat[len(cols):]:
    ax.axis("off")
fig.suptitle("Distributions in " + ${py(p.name)})
plt.tight_layout()
plt.show()
`;
    },
  },
  {
    id: 'correlation',
    label: 'Correlation heatmap',
    description: 'How strongly each pair of number columns moves together',
    unavailable: (p) =>
      tabular(p) || (measureColumns(p).length >= 2 ? '' : 'It needs at least two number columns.'),
    code(p) {
      const cols = measureColumns(p).slice(0, 30).map((c) => c.name);
      return `${readCode(p)}
${plotStyle}
cols = [c for c in ${pyList(cols)} if pd.api.types.is_numeric_dtype(df[c])]
corr = df[cols].corr()
n = len(cols)
fig, ax = plt.subplots(figsize=(min(14, 2.5 + 0.8 * n), min(12, 2 + 0.7 * n)))
im = ax.imshow(corr, cmap="RdBu_r", vmin=-1, vmax=1)
ax.set_xticks(range(n), corr.columns, rotation=45, ha="right")
ax.set_yticks(range(n), corr.columns)
if n <= 12:
    for i in range(n):
        for j in range(n):
            v = corr.iat[i, j]
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=9,
                    color="white" if abs(v) > 0.6 else "black")
fig.colorbar(im, ax=ax, shrink=0.8, label="Pearson correlation")
ax.set_title("Correlation between number columns")
plt.tight_layout()
plt.show()

print(corr.round(3).to_string())
`;
    },
  },
  {
    id: 'groupby',
    label: 'Group-by plot',
    description: 'A number column averaged per category, with the row count of each',
    unavailable: (p) =>
      tabular(p) ||
      (!categoryColumn(p)
        ? 'It needs a text column whose values repeat (a category).'
        : !measureColumns(p).length
          ? 'It needs a number column.'
          : ''),
    code(p) {
      const cat = categoryColumn(p)!.name;
      const val = measureColumns(p)[0].name;
      return `${readCode(p)}
${plotStyle}
by = ${py(cat)}
value = ${py(val)}
groups = df.groupby(by)[value].agg(["mean", "count"]).sort_values("count", ascending=False)
top = groups.head(20).sort_values("mean")
fig, ax = plt.subplots(figsize=(9, max(3, 0.4 * len(top) + 1)))
ax.barh(top.index.astype(str), top["mean"], color="#12a08f")
for y, (m, n) in enumerate(zip(top["mean"], top["count"])):
    ax.text(m, y, f"  {n:,} row{'' if n == 1 else 's'}", va="center", fontsize=8)
ax.set_xlabel(f"mean of {value}")
ax.set_ylabel(by)
title = f"{value} by {by}"
if len(groups) > len(top):
    title += f" (the {len(top)} largest of {len(groups)} groups)"
ax.set_title(title)
plt.tight_layout()
plt.show()

print(groups.to_string())
`;
    },
  },
];

/** The analysis with id. */
export function analysis(id: AnalysisId): Analysis {
  return analyses.find((a) => a.id === id)!;
}
