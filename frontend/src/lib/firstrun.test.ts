import { describe, expect, it } from 'vitest';
import { progressFraction, progressText, stateLabel, tally, type FirstRun } from './firstrun';

describe('first-run checklist', () => {
  it('says each state in words', () => {
    expect(stateLabel('ok')).toEqual({ mark: '✓', words: 'done' });
    expect(stateLabel('fail').words).toBe('needs a fix');
    expect(stateLabel('working').mark).toBe('…');
  });
  it('shows a load in percent of MiB', () => {
    const p = { id: 'image', message: 'loading the sandbox image', done: 94 << 20, total: 188 << 20 };
    expect(progressText(p)).toBe('loading the sandbox image: 50% of 188 MiB');
    expect(progressFraction(p)).toBe(0.5);
  });
  it('shows a message alone when the size is unknown', () => {
    const p = { id: 'selftest', message: 'running the self-test' };
    expect(progressText(p)).toBe('running the self-test');
    expect(progressFraction(p)).toBeNull();
    expect(progressText(undefined)).toBe('');
  });
  it('never shows more than 100%', () => {
    expect(progressFraction({ id: 'image', message: 'x', done: 300, total: 200 })).toBe(1);
  });
  it('counts ok and warn as done', () => {
    const fr: FirstRun = {
      complete: false,
      show: true,
      items: [
        { id: 'podman', title: 'P', state: 'ok', detail: '' },
        { id: 'storage', title: 'S', state: 'warn', detail: '' },
        { id: 'image', title: 'I', state: 'working', detail: '' },
        { id: 'selftest', title: 'T', state: 'todo', detail: '' },
      ],
    };
    expect(tally(fr)).toEqual({ done: 2, of: 4 });
    expect(tally(null)).toEqual({ done: 0, of: 0 });
  });
});
