import { describe, expect, it } from 'vitest';
import { flushSync, mount, tick, unmount } from 'svelte';
import Markdown from './Markdown.svelte';
import ModelSettingsPanel from './ModelSettingsPanel.svelte';

const answer = 'South had the most.\n\n```python\nprint(6 * 7)\n```\n\n```js\nconsole.log(1)\n```\n';
const result = (stdout: string) => ({ code: '', result: { exit_code: 0, stdout, stderr: '', files: [{ name: 'p.png', kind: 'plot', size: 3, path: '/x/p.png', data_url: 'data:image/png;base64,AAAA' }], duration_ms: 1200, session_id: 's', cell: 2 } });

describe('Run on a python block of an answer', () => {
  it('is offered only on python blocks, only when the screen allows it, and runs nothing until clicked', async () => {
    const target = document.body.appendChild(document.createElement('div'));
    const asked: string[] = [];
    const cmp = mount(Markdown, { target, props: { text: answer, onrun: async (code: string) => (asked.push(code), result('42\n')) as never } });
    const runs = target.querySelectorAll<HTMLButtonElement>('button[data-run]');
    expect(runs.length).toBe(1);
    await tick();
    expect(asked).toEqual([]);
    runs[0].click();
    flushSync();
    await new Promise((r) => setTimeout(r, 0));
    flushSync();
    expect(asked).toEqual(['print(6 * 7)\n']);
    const shown = target.querySelector('[data-testid=ask-block-run]')!;
    expect(shown.parentElement?.previousElementSibling?.classList.contains('codeblock')).toBe(true); // under its block
    expect(shown.querySelector('[data-testid=ask-block-output]')?.textContent).toBe('42\n');
    expect(shown.querySelector('img[data-testid=ask-block-plot]')).not.toBeNull();
    expect(shown.textContent).toContain('ran, 1 plot, 1.2 s');
    runs[0].click(); // again: the same block, its run replaced
    await new Promise((r) => setTimeout(r, 0));
    expect(asked.length).toBe(2);
    expect(target.querySelectorAll('[data-testid=ask-block-run]').length).toBe(1);
    unmount(cmp);

    const plain = mount(Markdown, { target, props: { text: answer } });
    expect(target.querySelectorAll('button[data-run]').length).toBe(0);
    unmount(plain);
  });
});

describe("a model's settings panel", () => {
  it('says a served model’s server decides its context, and refuses a temperature out of range in words', () => {
    const target = document.body.appendChild(document.createElement('div'));
    const cmp = mount(ModelSettingsPanel, { target, props: { model: 'a-very-long-model-name:70b-instruct-q4_K_M', carried: false, saved: { temperature: 0.3 }, onsaved: () => {}, onclose: () => {} } });
    flushSync();
    const t = target.querySelector<HTMLInputElement>('[data-testid=model-temperature]')!;
    expect(t.value).toBe('0.3');
    expect(target.querySelector<HTMLInputElement>('[data-testid=model-context]')!.disabled).toBe(true);
    expect(target.querySelector('[data-testid=model-context-words]')!.textContent).toContain('the server decides');
    expect(target.textContent).toContain('Settings for a-very-long-model-name:70b-instruct-q4_K_M');
    t.value = '5';
    t.dispatchEvent(new Event('input'));
    flushSync();
    target.querySelector<HTMLButtonElement>('[data-testid=model-settings-save]')!.click();
    flushSync();
    expect(target.querySelector('[data-testid=model-settings-problem]')!.textContent).toContain('0 to 2');
    unmount(cmp);
  });
});
