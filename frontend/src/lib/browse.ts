// Browsing in the window: a library's article (zim://LIBRARY/PATH) shown
// in rehome's reader, its links kept inside the library, everything
// else of the page through the same sanitiser as answers (no scripts,
// styles, images, frames or forms).
import { sanitize } from './markdown';

/** Splits zim://LIBRARY/PATH; null for anything else. */
export function parseZim(address: string): { book: string; path: string } | null {
  const m = /^zim:\/\/([a-z0-9][a-z0-9._-]*)\/(.+)$/.exec(address);
  if (!m) return null;
  let path: string;
  try {
    path = decodeURIComponent(m[2]);
  } catch {
    return null; // a malformed %-escape
  }
  if (path.split('/').includes('..')) return null;
  return { book: m[1], path };
}

/** The zim:// address a link of the article at base points to, or null
 * (a web link, a fragment, or one that climbs out of the library). */
export function resolveZim(base: string, href: string): string | null {
  const b = parseZim(base);
  if (!b || /^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#') || href.startsWith('//')) return null;
  const noFrag = href.split('#')[0].split('?')[0];
  if (!noFrag) return null;
  const parts = noFrag.startsWith('/') ? [] : b.path.split('/').slice(0, -1);
  for (const seg of noFrag.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.length ? `zim://${b.book}/${parts.map(encodeURIComponent).join('/')}` : null;
}

/** The article's body as safe HTML. The backend has made it safe already
 * (core.Browse.Read: links to the library's pages as zim:// addresses);
 * here those links become "#zim=ADDRESS" (the reader follows them),
 * relative ones are resolved the same way, web links stay, and the rest
 * goes through the same sanitiser as answers, a second wall. */
export function articleHTML(base: string, html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const a of Array.from(doc.querySelectorAll('a[href]'))) {
    const href = a.getAttribute('href') ?? '';
    const to = href.startsWith('zim://') ? (parseZim(href) ? href : null) : resolveZim(base, href);
    if (to) a.setAttribute('href', '#zim=' + to);
    else if (!/^https?:\/\//i.test(href)) a.removeAttribute('href');
  }
  return sanitize(doc.body?.innerHTML ?? '');
}

/** The web address a click in the article leads to, or null: the reader
 * asks before it hands one to the user's browser. */
export function webLink(href: string): string | null {
  return /^https?:\/\/[^/]/i.test(href) ? href : null;
}

/** Which reader opens an address: "zim" (rehome's), "web" (the user's browser) or null. */
export function opener(url: string): 'zim' | 'web' | null {
  if (parseZim(url)) return 'zim';
  if (/^https?:\/\//i.test(url)) return 'web';
  return null;
}
