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

describe('the editor’s new fields', () => {
  it('refuses a picture that is not PNG/JPEG/WebP or is over 5 MiB, before sending it', async () => {
    const { pictureFileProblem } = await import('./assistants');
    expect(pictureFileProblem({ name: 'me.png', size: 1000, type: 'image/png' })).toBe('');
    expect(pictureFileProblem({ name: 'me.webp', size: 1000, type: '' })).toBe('');
    expect(pictureFileProblem({ name: 'me.gif', size: 1000, type: 'image/gif' })).toMatch(/not a PNG, JPEG or WebP/);
    expect(pictureFileProblem({ name: 'me.jpg', size: 6 << 20, type: 'image/jpeg' })).toMatch(/6\.0 MiB: a picture is at most 5 MiB/);
  });
  it('refuses a schema file over 1 MiB or empty', async () => {
    const { schemaFileProblem } = await import('./assistants');
    expect(schemaFileProblem({ name: 'shop.yaml', size: 300 })).toBe('');
    expect(schemaFileProblem({ name: 'dump.json', size: 2 << 20 })).toMatch(/at most 1 MiB/);
    expect(schemaFileProblem({ name: 'e.json', size: 0 })).toMatch(/empty/);
  });
  it('a new assistant has empty editor fields; the initial stands in for no picture', async () => {
    const { initial } = await import('./assistants');
    expect(emptyAssistant()).toMatchObject({ welcome_message: '', model: '', picture: '' });
    expect(initial('  élan')).toBe('É');
    expect(initial('')).toBe('?');
  });
  it('says in the preview that code does not run there, and shows an error', async () => {
    const { previewWords } = await import('./assistants');
    expect(previewWords({ answer: 'Hi', stopped: 'answered', turns: [{ cells: [] }] })).toEqual({ answer: 'Hi', note: '' });
    expect(previewWords({ answer: 'Done', stopped: 'answered', turns: [{ cells: [{}] }] }).note).toMatch(/does not run in the preview/);
    expect(previewWords({ answer: '', stopped: 'error', error: 'server gone', turns: [] })).toEqual({ answer: '', note: 'server gone' });
  });
});

describe('the preview as it streams', () => {
  it('shows the latest turn that has text', async () => {
    const { streamed } = await import('./assistants');
    expect(streamed([])).toBe('');
    expect(streamed(['I will load it', ''])).toBe('I will load it');
    expect(streamed(['I will load it', 'The summary'])).toBe('The summary');
  });
});
