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
