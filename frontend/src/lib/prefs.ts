// Preferences of this UI that live in the browser (or the window's web
// view): small choices about how screens behave, not data. Kept per data
// folder (lib/storage.ts).
import { readItem, writeItem } from './storage';

const PREFIX = 'rehome.pref.';

/** The window's colours: as the system's, or always light or dark. */
export type Theme = 'system' | 'light' | 'dark';

export interface Prefs {
  /** Run the Quick look analysis as soon as a file is dropped. */
  autoRun: boolean;
  /** The theme chosen in Settings. */
  theme: Theme;
  /** The sections' sidebar folded to icons. */
  navCollapsed: boolean;
  /** The Code Interpreter's output pane height, in pixels (0: its default). */
  outputHeight: number;
}

const defaults: Prefs = { autoRun: true, theme: 'system', navCollapsed: false, outputHeight: 0 };

/** Whether the user has made this choice (a default applies until then). */
export function hasPref(key: keyof Prefs): boolean {
  return readItem(PREFIX + key) !== null;
}

export function getPref<K extends keyof Prefs>(key: K): Prefs[K] {
  try {
    const raw = readItem(PREFIX + key);
    if (raw === null) return defaults[key];
    return JSON.parse(raw) as Prefs[K];
  } catch {
    return defaults[key];
  }
}

export function setPref<K extends keyof Prefs>(key: K, value: Prefs[K]): void {
  writeItem(PREFIX + key, JSON.stringify(value));
}
