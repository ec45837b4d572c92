import { describe, expect, it } from 'vitest';
import { Call } from './call.svelte';

// A promise the test settles by hand.
function later<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('Call', () => {
  it('is busy while the call runs and gives what it gave', async () => {
    const c = new Call();
    expect(c.busy).toBe(false);
    const d = later<number>();
    const p = c.run(() => d.promise);
    expect(c.busy).toBe(true);
    d.resolve(7);
    expect(await p).toBe(7);
    expect(c.busy).toBe(false);
    expect(c.error).toBe('');
  });

  it('keeps the words of a call that throws, resets busy, and does not reject', async () => {
    const c = new Call();
    const got = await c.run(async () => {
      throw new Error('no sandbox');
    });
    expect(got).toBeUndefined();
    expect(c.error).toBe('no sandbox');
    expect(c.busy).toBe(false);
    // Not an Error: its text.
    await c.run(() => Promise.reject('refused'));
    expect(c.error).toBe('refused');
    expect(c.busy).toBe(false);
  });

  it('resets busy when the work throws before its first await', async () => {
    const c = new Call();
    await c.run(() => {
      throw new Error('at once');
    });
    expect(c.busy).toBe(false);
    expect(c.error).toBe('at once');
  });

  it('keeps the last error while a call runs and clears it once one succeeds', async () => {
    const c = new Call();
    await c.run(() => Promise.reject(new Error('down')));
    const d = later<string>();
    const p = c.run(() => d.promise);
    expect(c.error).toBe('down');
    d.resolve('up');
    await p;
    expect(c.error).toBe('');
  });

  it('keeps a panel’s own words set before the call when it fails, replaced by its words', async () => {
    const c = new Call();
    c.error = 'Give the path first.';
    await c.run(() => Promise.reject(new Error('not a gguf file')));
    expect(c.error).toBe('not a gguf file');
  });

  it('stays busy until the last of two overlapping calls ends; the last to end has the error', async () => {
    const c = new Call();
    const first = later<void>();
    const second = later<void>();
    const p1 = c.run(() => first.promise);
    const p2 = c.run(() => second.promise);
    first.reject(new Error('first failed'));
    await p1;
    expect(c.busy).toBe(true);
    expect(c.error).toBe('first failed');
    second.resolve();
    await p2;
    expect(c.busy).toBe(false);
    expect(c.error).toBe('');
    // And the other way round: the second fails after the first succeeded.
    const a = later<void>();
    const b = later<void>();
    const q1 = c.run(() => a.promise);
    const q2 = c.run(() => b.promise);
    a.resolve();
    await q1;
    expect(c.busy).toBe(true);
    b.reject(new Error('second failed'));
    await q2;
    expect(c.busy).toBe(false);
    expect(c.error).toBe('second failed');
  });

  it('shown busy before its first call (a first load) until that call ends, even when it throws', async () => {
    const c = new Call(true);
    expect(c.busy).toBe(true);
    await c.run(() => Promise.reject(new Error('no')));
    expect(c.busy).toBe(false);
    expect(c.error).toBe('no');
  });

  it('attempt leaves busy alone and keeps the error as run does', async () => {
    const c = new Call();
    const d = later<void>();
    const p = c.attempt(() => d.promise);
    expect(c.busy).toBe(false);
    d.reject(new Error('bad diff'));
    expect(await p).toBeUndefined();
    expect(c.error).toBe('bad diff');
    // While the panel's own call runs, an attempt neither ends nor starts it.
    const r = later<void>();
    const running = c.run(() => r.promise);
    expect(await c.attempt(async () => 'saved')).toBe('saved');
    expect(c.error).toBe('');
    expect(c.busy).toBe(true);
    r.resolve();
    await running;
    expect(c.busy).toBe(false);
  });
});
