import { describe, expect, it } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import AnswerSources from './AnswerSources.svelte';

describe('AnswerSources.svelte', () => {
  it('shows the search step and the cited sources in order', () => {
    const target = document.createElement('div');
    const cites = [
      { n: 2, file: 'handbook.pdf', page: 7, quote: 'Leave is 25 days.' },
      { n: 1, file: 'policy.md', section: 'Travel', quote: 'Book trains.' },
    ];
    const cmp = mount(AnswerSources, {
      target,
      props: { searches: [{ name: 'file_search', via: 'tool_call', fed: '…', citations: [...cites, { n: 3, file: 'handbook.pdf', page: 9, quote: 'x' }] }], citations: cites },
    });
    flushSync();
    expect(target.querySelector('[data-testid=ask-search-step] summary')!.textContent!.trim()).toBe('Searched the knowledge files: 3 passages from 2 files');
    expect([...target.querySelectorAll('[data-testid=ask-source]')].map((n) => n.textContent)).toEqual(['policy.md, Travel', 'handbook.pdf, page 7']);
    unmount(cmp);
  });
  it('says a search that found nothing, and lists no sources', () => {
    const target = document.createElement('div');
    const cmp = mount(AnswerSources, { target, props: { searches: [{ name: 'file_search', via: 'tool_call', fed: '' }], citations: [] } });
    flushSync();
    expect(target.textContent).toContain('Searched the knowledge files: nothing matched');
    expect(target.querySelector('[data-testid=ask-sources]')).toBeNull();
    unmount(cmp);
  });
});
