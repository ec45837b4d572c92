import { describe, expect, it } from 'vitest';
import { startTooltips } from './tooltips';

describe('tooltips', () => {
  it('a click puts the title aside until the pointer leaves', () => {
    const stop = startTooltips();
    document.body.innerHTML = '<button title="Look again"><span>x</span></button>';
    const b = document.querySelector('button')!;
    b.querySelector('span')!.dispatchEvent(new Event('pointerdown', { bubbles: true }));
    expect(b.hasAttribute('title')).toBe(false);
    b.dispatchEvent(new Event('pointerleave'));
    expect(b.getAttribute('title')).toBe('Look again');
    stop();
    b.dispatchEvent(new Event('pointerdown', { bubbles: true }));
    expect(b.getAttribute('title')).toBe('Look again');
  });
  it('keeps a title the screen changed meanwhile', () => {
    const stop = startTooltips();
    document.body.innerHTML = '<button title="old">x</button>';
    const b = document.querySelector('button')!;
    b.dispatchEvent(new Event('pointerdown', { bubbles: true }));
    b.setAttribute('title', 'new');
    b.dispatchEvent(new Event('pointerleave'));
    expect(b.getAttribute('title')).toBe('new');
    stop();
  });
});
