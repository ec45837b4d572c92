// The one place that talks to Go. In the desktop window the Wails runtime
// has injected `window.go.app.Calls` (one method, Call, the door to every
// method of the Go App's services, which turns a panic into an error: app/calls.go)
// and `window.runtime`; in a browser
// (`rehome serve`) the same methods are reached over the HTTP bridge and
// events arrive as Server-Sent Events. No screen knows the difference.
// Screens do not call these by name: gen/api.gen.ts (`make gen`) holds a
// typed function per Go method, and onEvent() per event, built on them.

type Handler = (data: any) => void;

declare global {
  interface Window {
    go?: any;
    runtime?: any;
  }
}

/** True inside the Wails desktop window. */
export function inWindow(): boolean {
  return typeof window.go?.app?.Calls?.Call === 'function';
}

function meta(name: string): string {
  if (typeof document === 'undefined') return '';
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';
}

/**
 * The headers every bridge request carries in a browser: `rehome serve`
 * puts its token into the page it serves, and refuses API requests
 * without it (a cookie alone would let other local pages call in).
 */
export function authHeaders(): Record<string, string> {
  const t = meta('rehome-token');
  return t ? { 'X-Rehome-Token': t } : {};
}

/**
 * Adds the read key to a GET /api/file or /api/events URL: an <img>, a
 * download link or an EventSource cannot send headers, so these two take
 * a key that reads files and events and nothing else.
 */
export function withReadKey(url: string): string {
  const k = meta('rehome-read-key');
  if (!k) return url;
  return `${url}${url.includes('?') ? '&' : '?'}k=${encodeURIComponent(k)}`;
}

/** Calls method on the Go App with args and returns its result. */
export async function call<T = unknown>(method: string, ...args: unknown[]): Promise<T> {
  if (inWindow()) {
    try {
      return (await window.go.app.Calls.Call(method, args)) as T;
    } catch (e) {
      throw e instanceof Error ? e : new Error(String(e));
    }
  }
  let res: Response;
  try {
    res = await fetch(`/api/call/${encodeURIComponent(method)}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...authHeaders() },
      body: JSON.stringify(args),
      credentials: 'same-origin',
    });
  } catch {
    throw new Error('rehome is not reachable: is `rehome serve` still running?');
  }
  let body: { result?: T; error?: string };
  try {
    body = await res.json();
  } catch {
    throw new Error(
      res.status === 401 || res.status === 403
        ? 'This page lost its access token: open the URL that `rehome serve` printed.'
        : `${method} failed (HTTP ${res.status})`,
    );
  }
  if (body.error) throw new Error(body.error);
  return body.result as T;
}

const handlers = new Map<string, Set<Handler>>();
let source: EventSource | null = null;

/** Subscribes to a progress event from Go; returns the unsubscribe function. */
export function on(event: string, handler: Handler): () => void {
  if (inWindow() && window.runtime?.EventsOn) {
    return window.runtime.EventsOn(event, handler);
  }
  if (!handlers.has(event)) handlers.set(event, new Set());
  handlers.get(event)!.add(handler);
  if (!source && typeof EventSource !== 'undefined') {
    source = new EventSource(withReadKey('/api/events'));
    source.onmessage = (m) => {
      let msg: { event: string; data: unknown };
      try {
        msg = JSON.parse(m.data);
      } catch {
        return;
      }
      handlers.get(msg.event)?.forEach((h) => h(msg.data));
    };
  }
  return () => handlers.get(event)?.delete(handler);
}

/** Turns any thrown value into a message for the user. */
export function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
