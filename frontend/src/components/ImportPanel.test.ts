import { describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';

vi.mock('../lib/api', async (orig) => ({ ...(await orig<typeof import('../lib/api')>()), inWindow: () => true }));
vi.mock('../lib/filedrop', async (orig) => ({ ...(await orig<typeof import('../lib/filedrop')>()), claimFileDrop: () => () => {} }));
import ImportPanel from './ImportPanel.svelte';

describe('ImportPanel.svelte', () => {
  it("says rehome keeps its own copy of the files (it said 'referenced where they are, never copied')", () => {
    const target = document.createElement('div');
    const cmp = mount(ImportPanel, { target, props: { onimported: () => {} } });
    flushSync();
    const text = target.querySelector('[data-testid=import-drop]')!.textContent!;
    expect(text).toContain('rehome keeps its own copy of each file in its data folder');
    expect(text).not.toContain('never copied');
    unmount(cmp);
  });
});
