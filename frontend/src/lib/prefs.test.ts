import { beforeEach, describe, expect, it } from 'vitest';
import { getPref, setPref } from './prefs';

describe('prefs', () => {
  beforeEach(() => localStorage.clear());
  it('defaults to running a quick look on drop', () => {
    expect(getPref('autoRun')).toBe(true);
  });
  it('remembers a choice', () => {
    setPref('autoRun', false);
    expect(getPref('autoRun')).toBe(false);
  });
  it('survives a damaged value', () => {
    localStorage.setItem('rehome.pref.autoRun', '{not json');
    expect(getPref('autoRun')).toBe(true);
  });
});
