import { beforeEach, describe, expect, it } from 'vitest';
import { getPref } from './prefs';
import { chooseTheme, resolveTheme, startTheme } from './theme';

describe('theme', () => {
  beforeEach(() => localStorage.clear());
  it('follows the system until light or dark is chosen', () => {
    expect(resolveTheme('system', true)).toBe('dark');
    expect(resolveTheme('system', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
  });
  it('saves the choice and applies it to the page at once', () => {
    startTheme();
    chooseTheme('dark');
    expect(getPref('theme')).toBe('dark');
    expect(document.documentElement.dataset.theme).toBe('dark');
    chooseTheme('light');
    expect(document.documentElement.dataset.theme).toBe('light');
  });
});
