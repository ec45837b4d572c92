import { describe, expect, it } from 'vitest';
import { dateGroup, groupByDate, shortTitle } from './convlist';

const now = new Date(2026, 11, 3, 15, 0); // 3 December 2026, 15:00 local
const at = (y: number, m: number, d: number, h = 12) => new Date(y, m, d, h).toISOString();

describe('dateGroup', () => {
  it('names the groups as chat apps do', () => {
    expect(dateGroup(at(2026, 11, 3, 0), now)).toBe('Today');
    expect(dateGroup(at(2026, 11, 2, 23), now)).toBe('Yesterday');
    expect(dateGroup(at(2026, 10, 28), now)).toBe('Previous 7 days');
    expect(dateGroup(at(2026, 10, 5), now)).toBe('Previous 30 days');
    expect(dateGroup(at(2026, 6, 14), now)).toBe('July');
    expect(dateGroup(at(2025, 6, 14), now)).toBe('July 2025');
    expect(dateGroup('not a date', now)).toBe('Older');
  });
  it('groups a newest-first list in order', () => {
    const g = groupByDate([{ updated: at(2026, 11, 3) }, { updated: at(2026, 11, 3, 9) }, { updated: at(2026, 11, 2) }, { updated: at(2025, 0, 1) }], now);
    expect(g.map((x) => [x.label, x.items.length])).toEqual([['Today', 2], ['Yesterday', 1], ['January 2025', 1]]);
  });
});

describe('shortTitle', () => {
  it('makes a short title of the first question', () => {
    expect(shortTitle('Can you please tell me which region had the most revenue in sales.csv?')).toBe('Tell me which region had the most revenue in…');
    expect(shortTitle('Which region had the most revenue?')).toBe('Which region had the most revenue');
    expect(shortTitle('Plot revenue by month. Then fit a trend line and tell me the slope.')).toBe('Plot revenue by month');
    expect(shortTitle('hello\nsecond line')).toBe('Hello');
    expect(shortTitle('')).toBe('New conversation');
  });
  it('keeps a typed title’s words, and cuts one with no spaces', () => {
    expect(shortTitle('Sales by region')).toBe('Sales by region');
    expect(shortTitle('x'.repeat(100)).length).toBe(49);
  });
});
