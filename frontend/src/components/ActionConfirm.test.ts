import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, tick, unmount } from 'svelte';

// The dialog's Go side: the action:confirm event and AnswerAction.
const h = vi.hoisted(() => ({ handler: undefined as undefined | ((c: unknown) => void), answers: [] as [string, string][] }));
vi.mock('../lib/gen/api.gen', () => ({
  onEvent: (_e: string, fn: (c: unknown) => void) => {
    h.handler = fn;
    return () => {};
  },
  AnswerAction: async (id: string, d: string) => {
    h.answers.push([id, d]);
  },
  UIEvent: async () => {},
}));
import ActionConfirm from './ActionConfirm.svelte';

function ask(id: string) {
  return { id, ask: { assistant: 'Weather', operation: 'getForecast', method: 'GET', host: 'api.example.com', arguments: '{"city":"Oslo"}', always_offered: true } };
}

function key(k: string, shift = false) {
  (document.activeElement ?? document.body).dispatchEvent(new KeyboardEvent('keydown', { key: k, shiftKey: shift, bubbles: true, cancelable: true }));
  flushSync();
}

describe('ActionConfirm.svelte: keyboard safety', () => {
  afterEach(() => {
    document.body.innerHTML = '';
    h.answers = [];
  });

  it('takes the focus on Deny, keeps Tab inside, makes the screen inert, and Esc denies', async () => {
    document.body.innerHTML = '<div id="shell"><button id="stop">Stop</button></div><div id="target"></div>';
    const stopBtn = document.getElementById('stop') as HTMLButtonElement;
    stopBtn.focus();
    const cmp = mount(ActionConfirm, { target: document.getElementById('target')! });
    flushSync();
    h.handler!(ask('c1'));
    flushSync();
    await tick();
    await tick();
    const dialog = document.querySelector('[data-testid=action-confirm]')!;
    expect(dialog).not.toBeNull();
    expect(document.activeElement?.getAttribute('data-testid')).toBe('action-deny');
    expect((document.getElementById('shell') as HTMLElement).inert).toBe(true);
    // Tab goes round the dialog's own controls, never to Stop behind it.
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) {
      key('Tab');
      expect(dialog.contains(document.activeElement)).toBe(true);
      seen.add(document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName ?? '');
    }
    expect(seen).toContain('action-allow');
    expect(seen).toContain('action-always');
    key('Tab', true);
    expect(dialog.contains(document.activeElement)).toBe(true);
    // Enter on the focused Deny does not allow; Esc answers Deny.
    key('Escape');
    await tick();
    expect(h.answers).toEqual([['c1', 'deny']]);
    expect(document.querySelector('[data-testid=action-confirm]')).toBeNull();
    expect((document.getElementById('shell') as HTMLElement).inert).toBe(false);
    expect(document.activeElement).toBe(stopBtn);
    unmount(cmp);
  });

  it('a second waiting call keeps the screen inert until it is answered too', async () => {
    document.body.innerHTML = '<div id="shell"></div><div id="target"></div>';
    const cmp = mount(ActionConfirm, { target: document.getElementById('target')! });
    flushSync();
    h.handler!(ask('a'));
    h.handler!(ask('b'));
    flushSync();
    await tick();
    key('Escape');
    await tick();
    await tick();
    expect((document.getElementById('shell') as HTMLElement).inert).toBe(true);
    expect(document.activeElement?.getAttribute('data-testid')).toBe('action-deny');
    (document.querySelector('[data-testid=action-allow]') as HTMLButtonElement).click();
    flushSync();
    await tick();
    expect(h.answers).toEqual([['a', 'deny'], ['b', 'allow']]);
    expect((document.getElementById('shell') as HTMLElement).inert).toBe(false);
    unmount(cmp);
  });
});
