// The conversation list's words: date groups as chat apps show them
// (Today, Yesterday, Previous 7 days, Previous 30 days, then months and
// years), and a short title made from the first question, cheaply (no
// model is asked).
import type { llm } from './gen/api.gen';

type Summary = Pick<llm.ConversationSummary, 'updated'>;

/** The group a conversation last changed on falls in, seen from now. */
export function dateGroup(iso: string, now = new Date()): string {
  const d = new Date(iso);
  if (isNaN(d.getTime())) return 'Older';
  const day = (x: Date) => new Date(x.getFullYear(), x.getMonth(), x.getDate()).getTime();
  const days = Math.round((day(now) - day(d)) / 86400000);
  if (days <= 0) return 'Today';
  if (days === 1) return 'Yesterday';
  if (days <= 7) return 'Previous 7 days';
  if (days <= 30) return 'Previous 30 days';
  const month = d.toLocaleDateString('en-GB', { month: 'long' });
  return d.getFullYear() === now.getFullYear() ? month : `${month} ${d.getFullYear()}`;
}

/** The list in its groups, in the order given (newest first). */
export function groupByDate<T extends Summary>(list: T[], now = new Date()): { label: string; items: T[] }[] {
  const out: { label: string; items: T[] }[] = [];
  for (const c of list) {
    const label = dateGroup(c.updated, now);
    const last = out[out.length - 1];
    if (last?.label === label) last.items.push(c);
    else out.push({ label, items: [c] });
  }
  return out;
}

const filler = /^(?:(?:hi|hello|hey)[,!.]?\s+)?(?:(?:can|could|would|will) you(?: please)?|please|i (?:want|need|would like) (?:you )?to|tell me|help me(?: to)?)\s+/i;

/**
 * A short title from a question (or a title kept from one): its first
 * sentence or line, the polite opening dropped, cut at a word under max
 * characters. A title the user typed keeps its words (only cut).
 */
export function shortTitle(t: string, max = 48): string {
  let s = (t ?? '').trim();
  if (!s) return 'New conversation';
  s = s.split(/\n/)[0];
  const sentence = /^(.{12,}?[.?!])(\s|$)/.exec(s);
  if (sentence) s = sentence[1];
  const stripped = s.replace(filler, '');
  if (stripped.length >= 8) s = stripped;
  s = s.replace(/[?.!]+$/, '').trim();
  s = s.charAt(0).toUpperCase() + s.slice(1);
  if ([...s].length <= max) return s;
  const cut = [...s].slice(0, max).join('');
  const at = cut.lastIndexOf(' ');
  return (at > max / 2 ? cut.slice(0, at) : cut).replace(/[\s,;:–-]+$/, '') + '…';
}
