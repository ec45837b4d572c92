// The window's theme: the user's choice (system, light, dark), saved with
// the other preferences, applied as data-theme on <html> (app.css reads it).
import { getPref, setPref, type Theme } from './prefs';

export const themes: { id: Theme; label: string }[] = [
  { id: 'system', label: 'Follow the system' },
  { id: 'light', label: 'Light' },
  { id: 'dark', label: 'Dark' },
];

/** What a choice shows now: "system" follows prefers-color-scheme. */
export function resolveTheme(choice: Theme, systemDark: boolean): 'light' | 'dark' {
  if (choice === 'light' || choice === 'dark') return choice;
  return systemDark ? 'dark' : 'light';
}

const media = () => (typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null);

/** Applies the saved theme now, and again whenever the system's changes. */
export function startTheme(): void {
  const apply = () => {
    document.documentElement.dataset.theme = resolveTheme(getPref('theme'), media()?.matches ?? false);
  };
  apply();
  media()?.addEventListener?.('change', apply);
  window.addEventListener('storage', apply);
  window.addEventListener('rehome:theme', apply);
}

/** Saves a choice and applies it. */
export function chooseTheme(t: Theme): void {
  setPref('theme', t);
  window.dispatchEvent(new Event('rehome:theme'));
}
