import { describe, expect, it } from 'vitest';
import { ago, emptyAssistant, formProblem, startersFromText } from './assistants';

describe('assistant form', () => {
  it('splits starters by line and drops blanks', () => {
    expect(startersFromText(' a \n\n b\n  \n')).toEqual(['a', 'b']);
  });
  it('requires a name', () => {
    const a = emptyAssistant();
    expect(formProblem(a)).toMatch(/name/);
    a.name = '  ';
    expect(formProblem(a)).toMatch(/name/);
    a.name = 'Data helper';
    expect(formProblem(a)).toBe('');
  });
  it('caps starters', () => {
    const a = { ...emptyAssistant(), name: 'x', starters: Array(33).fill('s') };
    expect(formProblem(a)).toMatch(/32/);
  });
  it('says how long ago', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(ago('2026-01-01T11:59:30Z', now)).toBe('just now');
    expect(ago('2026-01-01T11:50:00Z', now)).toBe('10 min ago');
    expect(ago('2026-01-01T09:00:00Z', now)).toBe('3 h ago');
  });
});
