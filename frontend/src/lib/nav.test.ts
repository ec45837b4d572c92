import { describe, expect, it } from 'vitest';
import { screenFromHash } from './nav';

describe('screenFromHash', () => {
  it('reads the screen from the hash', () => {
    expect(screenFromHash('#/hardware')).toBe('hardware');
    expect(screenFromHash('#/code/run')).toBe('code');
    expect(screenFromHash('#audit')).toBe('audit');
  });
  it('falls back to assistants for unknown or empty hashes', () => {
    expect(screenFromHash('')).toBe('assistants');
    expect(screenFromHash('#/nope')).toBe('assistants');
  });
});

describe('the folded sidebar', () => {
  it('labels each section apart', async () => {
    const { screens } = await import('./nav');
    const shorts = screens.map((s) => s.short);
    expect(new Set(shorts).size).toBe(shorts.length);
    for (const s of shorts) expect(s.length).toBeLessThanOrEqual(5);
  });
});

describe('startScreen', async () => {
  const { startScreen } = await import('./nav');
  it('opens on the screen shown last, unless the address names one', () => {
    expect(startScreen('', 'ask')).toBe('ask');
    expect(startScreen('#/', 'settings')).toBe('settings');
    expect(startScreen('#/hardware', 'ask')).toBe('hardware');
    expect(startScreen('', null)).toBe('assistants');
    expect(startScreen('', 'gone')).toBe('assistants');
  });
});
