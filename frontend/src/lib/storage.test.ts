import { beforeEach, describe, expect, it } from 'vitest';
import { readItem, removeItem, setStorageFolder, storageKey, writeItem } from './storage';
import { getPref, setPref } from './prefs';

describe('storage per data folder', () => {
  beforeEach(() => localStorage.clear());

  it("keeps one folder's state away from another's", () => {
    setStorageFolder('/tmp/a');
    setPref('theme', 'dark');
    writeItem('rehome.ask.open', '{"assistant":"x"}');
    setStorageFolder('/tmp/b');
    expect(getPref('theme')).toBe('system');
    expect(readItem('rehome.ask.open')).toBeNull();
    setStorageFolder('/tmp/a');
    expect(getPref('theme')).toBe('dark');
    expect(readItem('rehome.ask.open')).toBe('{"assistant":"x"}');
  });

  it('never reads the keys an older rehome kept for every folder', () => {
    localStorage.setItem('rehome.pref.theme', '"dark"');
    setStorageFolder('/tmp/fresh');
    expect(getPref('theme')).toBe('system');
  });

  it('names the folder in the key, and forgets on remove', () => {
    setStorageFolder('/home/u/.local/share/rehome');
    expect(storageKey('x')).toBe('rehome@/home/u/.local/share/rehome|x');
    writeItem('x', '1');
    removeItem('x');
    expect(readItem('x')).toBeNull();
  });
});
