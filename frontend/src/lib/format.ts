// Numbers, sizes and durations in the words and units the UI uses:
// binary units (MiB, GiB) as everywhere in rehome, seconds for time.

/**
 * "512 MiB", "1.5 GiB", "24 GiB", "900 bytes": the largest binary unit that
 * keeps the number at 1 or more, one decimal dropped when it is zero. The
 * same rule as the backend's (backend/bytesize.Format).
 */
export function bytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '—';
  if (n < 1024) return `${n} ${n === 1 ? 'byte' : 'bytes'}`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  const r = (x: number) => Math.round(x * 10) / 10;
  let v = n / 1024;
  let i = 0;
  while (r(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${r(v).toString()} ${units[i]}`;
}

/** "1,234,567" in the user's locale. */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** "1 capability", "3 capabilities", "no knowledge files" (n written as count() does). */
export function plural(n: number, one: string, many: string, none?: string): string {
  if (n === 0 && none) return none;
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** A rounded large count: "34.7 million", "12,400", "1.2 billion". */
export function roughCount(n: number): string {
  if (n >= 1e9) return `${(Math.round(n / 1e8) / 10).toString()} billion`;
  if (n >= 1e6) return `${(Math.round(n / 1e5) / 10).toString()} million`;
  if (n >= 1e4) return count(Math.round(n / 100) * 100);
  return count(n);
}

/** "0.4 s", "12 s", "2 min 5 s", "1 h 3 min". */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 10_000) return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}

/** A limit in seconds as people say it: "30 s", "2 min", "1 h". */
export function seconds(s: number): string {
  return duration(s * 1000).replace(/^(\d+)\.0 s$/, '$1 s');
}

/** When something happened, shortly: "just now", "12 min ago", "3 h ago", or the date. */
export function ago(iso: string | undefined, now = Date.now()): string {
  const t = iso ? Date.parse(iso) : NaN;
  if (!Number.isFinite(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(t).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
}
