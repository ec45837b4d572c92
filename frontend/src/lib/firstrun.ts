// The first-run checklist (app/firstrun.go): its types and the words it
// shows. The component is components/FirstRun.svelte.
import type { app } from './gen/api.gen';

export type ItemState = 'ok' | 'warn' | 'fail' | 'working' | 'todo';

export type FirstRunItem = app.FirstRunItem;
export type FirstRun = app.FirstRun;

export type FirstRunProgress = app.FirstRunProgress;

const marks: Record<ItemState, string> = {
  ok: '✓',
  warn: '!',
  fail: '✗',
  working: '…',
  todo: '○',
};

const words: Record<ItemState, string> = {
  ok: 'done',
  warn: 'works, could be better',
  fail: 'needs a fix',
  working: 'in progress',
  todo: 'not checked yet',
};

/** The mark and the words for an item's state. */
export function stateLabel(s: ItemState | string): { mark: string; words: string } {
  return { mark: marks[s as ItemState] ?? '?', words: words[s as ItemState] ?? s };
}

/** "42% of 180 MiB" for a progress event with sizes, else its message only. */
export function progressText(p: FirstRunProgress | undefined): string {
  if (!p) return '';
  if (!p.total || p.total <= 0 || p.done === undefined) return p.message;
  const pct = Math.min(100, Math.floor((p.done * 100) / p.total));
  const mib = Math.round(p.total / (1 << 20));
  return `${p.message}: ${pct}% of ${mib} MiB`;
}

/** The fraction done (0…1) of a progress event, or null when unknown. */
export function progressFraction(p: FirstRunProgress | undefined): number | null {
  if (!p || !p.total || p.total <= 0 || p.done === undefined) return null;
  return Math.min(1, Math.max(0, p.done / p.total));
}

/** How many items are done (ok or warn) of how many. */
export function tally(fr: FirstRun | null): { done: number; of: number } {
  if (!fr) return { done: 0, of: 0 };
  return { done: fr.items.filter((i) => i.state === 'ok' || i.state === 'warn').length, of: fr.items.length };
}
