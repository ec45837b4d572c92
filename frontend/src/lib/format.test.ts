import { describe, expect, it } from 'vitest';
import { ago, bytes, count, duration, roughCount, seconds } from './format';

describe('format', () => {
  it('writes sizes in binary units', () => {
    expect(bytes(0)).toBe('0 bytes');
    expect(bytes(1)).toBe('1 byte');
    expect(bytes(1536)).toBe('1.5 KiB');
    expect(bytes(512 * 1024 * 1024)).toBe('512 MiB');
    expect(bytes(2 * 1024 ** 3)).toBe('2 GiB');
    expect(bytes(-1)).toBe('—');
  });
  it('writes counts', () => {
    expect(count(1234567)).toBe('1,234,567');
    expect(roughCount(34_733_751)).toBe('34.7 million');
    expect(roughCount(12_345)).toBe('12,300');
    expect(roughCount(999)).toBe('999');
    expect(roughCount(2_500_000_000)).toBe('2.5 billion');
  });
  it('writes durations', () => {
    expect(duration(420)).toBe('0.4 s');
    expect(duration(9_960)).toBe('10.0 s');
    expect(duration(12_000)).toBe('12 s');
    expect(duration(125_000)).toBe('2 min 5 s');
    expect(duration(3_780_000)).toBe('1 h 3 min');
    expect(seconds(30)).toBe('30 s');
    expect(seconds(5)).toBe('5 s');
    expect(seconds(120)).toBe('2 min');
  });
  it('says when', () => {
    const now = Date.parse('2024-05-10T12:00:00Z');
    expect(ago('2024-05-10T11:59:30Z', now)).toBe('just now');
    expect(ago('2024-05-10T11:48:00Z', now)).toBe('12 min ago');
    expect(ago('2024-05-10T09:00:00Z', now)).toBe('3 h ago');
    expect(ago('2024-05-01T09:00:00Z', now)).toBe('1 May 2024');
    expect(ago(undefined, now)).toBe('');
  });
});

describe('plural', async () => {
  const { plural } = await import('./format');
  it('says one and many apart, with the count written out', () => {
    expect(plural(1, 'capability', 'capabilities')).toBe('1 capability');
    expect(plural(3, 'capability', 'capabilities')).toBe('3 capabilities');
    expect(plural(213583, 'token', 'tokens')).toBe('213,583 tokens');
    expect(plural(0, 'knowledge file', 'knowledge files', 'no knowledge files')).toBe('no knowledge files');
  });
});
