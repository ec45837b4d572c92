// The window's global shortcuts: one table that the key handler and the
// shortcut sheet (Ctrl+/) both read.
import { screens, type ScreenId } from './nav';

export type Action =
  | { kind: 'screen'; screen: ScreenId }
  | { kind: 'new-conversation' }
  | { kind: 'focus-input' }
  | { kind: 'toggle-sidebar' }
  | { kind: 'sheet' };

export interface Shortcut {
  keys: string;
  what: string;
}

/** The sheet's rows, in the words it shows. */
export const shortcutSheet: Shortcut[] = [
  { keys: 'Ctrl+Shift+O', what: 'New conversation (Ask)' },
  { keys: 'Shift+Esc or /', what: "Focus the question box (Ask) or the code (Code Interpreter)" },
  ...screens.map((s, i) => ({ keys: `Ctrl+Shift+${i + 1}`, what: `Go to ${s.label}` })),
  { keys: 'Ctrl+B', what: 'Fold or unfold the sidebar' },
  { keys: 'Ctrl+/', what: 'Show these shortcuts' },
  { keys: 'Enter / Shift+Enter', what: 'Ask: send / new line' },
  { keys: 'Ctrl+Enter / Esc', what: 'Code Interpreter: run / stop' },
  { keys: 'Alt+1…5', what: 'Code Interpreter: run a ready analysis' },
];

type Key = Pick<KeyboardEvent, 'key' | 'code' | 'ctrlKey' | 'shiftKey' | 'altKey' | 'metaKey'>;

/** The action a key press asks for, or null; typing: the focus is in a text field. */
export function actionFor(e: Key, typing: boolean): Action | null {
  const mod = e.ctrlKey || e.metaKey;
  if (mod && !e.altKey && (e.key === '/' || e.code === 'Slash')) return { kind: 'sheet' };
  if (mod && e.shiftKey && !e.altKey && e.code === 'KeyO') return { kind: 'new-conversation' };
  if (mod && !e.shiftKey && !e.altKey && e.code === 'KeyB') return { kind: 'toggle-sidebar' };
  if (mod && e.shiftKey && !e.altKey && /^Digit[1-9]$/.test(e.code)) {
    const s = screens[Number(e.code.slice(5)) - 1];
    return s ? { kind: 'screen', screen: s.id } : null;
  }
  if (e.shiftKey && !mod && !e.altKey && e.key === 'Escape') return { kind: 'focus-input' };
  if (!typing && !mod && !e.altKey && e.key === '/') return { kind: 'focus-input' };
  return null;
}

/** True when the element takes typed text (a key there is the user's typing). */
export function isTyping(el: Element | null): boolean {
  if (!el) return false;
  const tag = el.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || (el as HTMLElement).isContentEditable || !!el.closest?.('.cm-editor');
}
