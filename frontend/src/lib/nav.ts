export type ScreenId = 'hardware' | 'assistants' | 'audit' | 'code' | 'ask' | 'settings';

/** The sections, with the short label a folded sidebar shows. */
export const screens: { id: ScreenId; label: string; short: string }[] = [
  { id: 'hardware', label: 'Hardware', short: 'HW' },
  { id: 'assistants', label: 'Assistants', short: 'GPTs' },
  { id: 'audit', label: 'Audit', short: 'Audit' },
  { id: 'code', label: 'Code Interpreter', short: 'Code' },
  { id: 'ask', label: 'Ask', short: 'Ask' },
  { id: 'settings', label: 'Settings', short: 'Set' },
];

/** The screen a location hash (#/assistants) points at; Assistants by default. */
export function screenFromHash(hash: string): ScreenId {
  const id = hash.replace(/^#\/?/, '').split(/[/?]/)[0];
  return (screens.find((s) => s.id === id)?.id ?? 'assistants') as ScreenId;
}

/** Whether a hash names a screen (#/ask), not nothing or something unknown. */
export function namesScreen(hash: string): boolean {
  const id = hash.replace(/^#\/?/, '').split(/[/?]/)[0];
  return screens.some((s) => s.id === id);
}

/**
 * The screen the window opens on: the one a hash names (a link, a
 * reload), else the one shown when it was last closed, else Assistants.
 */
export function startScreen(hash: string, kept: string | null): ScreenId {
  if (namesScreen(hash)) return screenFromHash(hash);
  return screenFromHash('#/' + (kept ?? ''));
}
