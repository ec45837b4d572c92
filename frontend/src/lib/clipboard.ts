// Copying text and opening links, in the window and in a browser alike.
import { inWindow } from './api';

/** Puts text on the clipboard: the Wails runtime's in the window, the browser's otherwise. */
export async function copyText(text: string): Promise<void> {
  if (inWindow() && window.runtime?.ClipboardSetText) {
    if (await window.runtime.ClipboardSetText(text)) return;
  }
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // An insecure page without the Clipboard API: the old way.
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.appendChild(ta);
  ta.select();
  const ok = document.execCommand('copy');
  ta.remove();
  if (!ok) throw new Error('The clipboard is not available here: select the text and press Ctrl+C.');
}

/** Opens an http(s) or mailto link outside rehome: the system browser from the window, a new tab otherwise. */
export function openExternal(href: string): void {
  if (!/^(https?:|mailto:)/i.test(href)) return;
  if (inWindow() && window.runtime?.BrowserOpenURL) window.runtime.BrowserOpenURL(href);
  else window.open(href, '_blank', 'noopener,noreferrer');
}
