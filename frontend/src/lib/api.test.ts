import { afterEach, describe, expect, it, vi } from 'vitest';
import { authHeaders, call, withReadKey } from './api';

function setMeta(name: string, content: string) {
  const m = document.createElement('meta');
  m.name = name;
  m.content = content;
  document.head.appendChild(m);
}

describe('bridge auth', () => {
  afterEach(() => {
    document.head.innerHTML = '';
    vi.unstubAllGlobals();
  });

  it('sends the token from the page in X-Rehome-Token on every call', async () => {
    setMeta('rehome-token', 'tok123');
    const fetchMock = vi.fn(async () => new Response(JSON.stringify({ result: 7 })));
    vi.stubGlobal('fetch', fetchMock);
    expect(await call('Status')).toBe(7);
    const init = (fetchMock.mock.calls[0] as unknown as [string, RequestInit])[1];
    expect((init.headers as Record<string, string>)['X-Rehome-Token']).toBe('tok123');
  });

  it('adds the read key, never the token, to file and event URLs', () => {
    setMeta('rehome-token', 'tok123');
    setMeta('rehome-read-key', 'rk 1');
    expect(withReadKey('/api/events')).toBe('/api/events?k=rk%201');
    expect(withReadKey('/api/file?path=%2Fx')).toBe('/api/file?path=%2Fx&k=rk%201');
    expect(withReadKey('/api/file?path=x')).not.toContain('tok123');
  });

  it('adds nothing where the page has no token (the window)', () => {
    expect(authHeaders()).toEqual({});
    expect(withReadKey('/api/file?path=x')).toBe('/api/file?path=x');
  });
});

describe('the window', () => {
  afterEach(() => {
    delete (window as any).go;
  });

  it('reaches every Go method through the one bound door, Calls.Call, and its errors come back as Errors', async () => {
    const Call = vi.fn(async (method: string, args: unknown[]) => {
      if (method === 'Boom') throw 'Boom stopped on input it could not read (index out of range): nothing was changed';
      return { method, args };
    });
    (window as any).go = { app: { Calls: { Call } } };
    expect(await call('Fit', 'qwen3', 8192)).toEqual({ method: 'Fit', args: ['qwen3', 8192] });
    expect(Call).toHaveBeenCalledWith('Fit', ['qwen3', 8192]);
    await expect(call('Boom')).rejects.toThrow('Boom stopped on input it could not read');
  });
});
