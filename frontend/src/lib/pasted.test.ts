// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { pastedName, renamePasted } from './pasted';

describe('pasted images', () => {
  it('are named by their bytes, as the window names them', async () => {
    const bytes = new TextEncoder().encode('\x89PNG\r\n\x1a\n not really a picture');
    const hex = createHash('sha256').update(bytes).digest('hex').slice(0, 8);
    expect(await pastedName(bytes.buffer, 'image/png')).toBe(`pasted-${hex}.png`);
    expect(await pastedName(bytes.buffer, 'image/jpeg')).toBe(`pasted-${hex}.jpg`);
  });

  it('two screenshots both called image.png get two names, their bytes and type kept', async () => {
    const a = new File([new Uint8Array([1, 2, 3])], 'image.png', { type: 'image/png' });
    const b = new File([new Uint8Array([4, 5, 6])], 'image.png', { type: 'image/png' });
    const [ra, rb] = await renamePasted([a, b]);
    expect(ra.name).not.toBe(rb.name);
    expect(ra.name).toMatch(/^pasted-[0-9a-f]{8}\.png$/);
    expect(ra.type).toBe('image/png');
    expect(new Uint8Array(await rb.arrayBuffer())).toEqual(new Uint8Array([4, 5, 6]));
  });

  it('a file copied by its name keeps it', async () => {
    const chart = new File([new Uint8Array([7])], 'chart.png', { type: 'image/png' });
    expect((await renamePasted([chart]))[0].name).toBe('chart.png');
  });
});
