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

  it('the first folder after an upgrade takes the keys an older rehome kept for every folder; no second folder reads them', () => {
    localStorage.setItem('rehome.pref.autoRun', 'false');
    localStorage.setItem('rehome.pref.theme', '"dark"');
    localStorage.setItem('rehome.split.code', '420');
    setStorageFolder('/tmp/first');
    expect(getPref('autoRun')).toBe(false);
    expect(getPref('theme')).toBe('dark');
    expect(readItem('rehome.split.code')).toBe('420');
    expect(localStorage.getItem('rehome.pref.theme')).toBeNull();
    setStorageFolder('/tmp/second');
    expect(getPref('autoRun')).toBe(true);
    expect(getPref('theme')).toBe('system');
  });

  it("a folder's own value wins over an older rehome's", () => {
    setStorageFolder('/tmp/own');
    setPref('theme', 'light');
    localStorage.setItem('rehome.pref.theme', '"dark"');
    setStorageFolder('/tmp/own');
    expect(getPref('theme')).toBe('light');
    expect(localStorage.getItem('rehome.pref.theme')).toBeNull();
  });

  it('names the folder in the key, and forgets on remove', () => {
    setStorageFolder('/home/u/.local/share/rehome');
    expect(storageKey('x')).toBe('rehome@/home/u/.local/share/rehome|x');
    writeItem('x', '1');
    removeItem('x');
    expect(readItem('x')).toBeNull();
  });
});
