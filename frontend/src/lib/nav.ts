export type ScreenId = 'hardware' | 'assistants' | 'audit' | 'code' | 'ask' | 'settings';

export const screens: { id: ScreenId; label: string }[] = [
  { id: 'hardware', label: 'Hardware' },
  { id: 'assistants', label: 'Assistants' },
  { id: 'audit', label: 'Audit' },
  { id: 'code', label: 'Code Interpreter' },
  { id: 'ask', label: 'Ask' },
  { id: 'settings', label: 'Settings' },
];

/** The screen a location hash (#/assistants) points at; Assistants by default. */
export function screenFromHash(hash: string): ScreenId {
  const id = hash.replace(/^#\/?/, '').split(/[/?]/)[0];
  return (screens.find((s) => s.id === id)?.id ?? 'assistants') as ScreenId;
}
