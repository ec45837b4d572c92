import { describe, expect, it } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import Markdown from './Markdown.svelte';

describe('Markdown.svelte', () => {
  it('opens a citation chip’s source (file, pages, quote) and closes it', () => {
    const target = document.createElement('div');
    document.body.appendChild(target);
    const cmp = mount(Markdown, {
      target,
      props: { text: 'Leave is 25 days [1].', citations: [{ n: 1, file: 'handbook.pdf', page: 3, page_end: 4, quote: 'Staff get 25 days of leave.' }] },
    });
    const chip = target.querySelector<HTMLButtonElement>('button.cite')!;
    expect(chip.textContent).toBe('1');
    chip.click();
    flushSync();
    const src = target.querySelector('[data-testid=cite-source]')!;
    expect(src.textContent).toContain('[1] handbook.pdf, pages 3–4');
    expect(src.textContent).toContain('Staff get 25 days of leave.');
    chip.click();
    flushSync();
    expect(target.querySelector('[data-testid=cite-source]')).toBeNull();
    unmount(cmp);
  });
});
