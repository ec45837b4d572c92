// The chat as users know it, in a browser (`rehome serve`, headless
// Chromium): answers rendered as Markdown (tables, highlighted code with a
// copy button, KaTeX math) and nothing in a hostile answer runs or covers
// the window; citations as chips; regenerate, edit-and-resend, rename,
// search and delete; time and tokens/s per answer; the question box in view
// at 800×600; the theme chosen in Settings; the shortcut sheet; and the
// conversation still open after a screen switch and a reload.
//
// The model server is a loopback server speaking Ollama's wire (the
// discovery fixtures of backend/llm/testdata, and chat chunks shaped as the
// recorded ollama-tools ones) that answers with the texts the test scripts.
// No code runs: no Podman needed. Screenshots land in $ARTIFACTS as
// browser-chat-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { startServe, launchBrowser, artifacts, testdata, serverField } from './harness.mjs';

// What the scripted model answers, in turn (the last one repeats).
const hostile = [
  '# Findings',
  '',
  '**South** sold most [1]. Here is a table:',
  '',
  '| region | revenue |',
  '|---|---|',
  '| South | 230.0 |',
  '',
  '```python',
  'import pandas as pd',
  'print(df.groupby("region").revenue.sum())',
  '```',
  '',
  'The sum is $\\sum_{i=1}^{n} x_i$ and \\(x^2\\).',
  '',
  '<script>window.__pwned = "script"</script>',
  '<img src=x onerror="window.__pwned = \'img\'">',
  '<div style="position:fixed;inset:0;z-index:9999;background:red" id="cover">cover</div>',
  '<style>body { display: none }</style>',
  '[click me](javascript:window.__pwned="link") [data](data:text/html,<script>alert(1)</script>)',
  '![pixel](http://127.0.0.1:9/pixel.png)',
  '$\\href{javascript:alert(1)}{x}$',
].join('\n');
let script = [hostile, 'A second answer: **regenerated**.', 'The edited question got this.'];
let asked = 0;
let bodies = [];

function scriptedOllama() {
  const disc = (f) => readFileSync(join(testdata, 'discovery', f));
  return new Promise((ok) => {
    const s = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', async () => {
        if (req.url === '/') return res.end(disc('ollama-root.txt'));
        if (req.url === '/v1/models') return res.end(disc('ollama-models.json'));
        if (req.url === '/api/show') return res.end(disc(`ollama-show-${JSON.parse(body).model.split(':')[0]}.json`));
        if (req.url !== '/v1/chat/completions') return res.writeHead(404).end();
        bodies.push(JSON.parse(body));
        const text = script[Math.min(asked++, script.length - 1)];
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        const chunk = (content, finish) =>
          `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1744438890, model: 'qwen2.5:7b', system_fingerprint: 'fp_ollama', choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: finish }] })}\n\n`;
        for (const piece of text.match(/[\s\S]{1,12}/g)) {
          res.write(chunk(piece, null));
          await new Promise((r) => setTimeout(r, 8));
        }
        res.write(chunk('', 'stop'));
        res.write(`data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1744438890, model: 'qwen2.5:7b', choices: [], usage: { prompt_tokens: 40, completion_tokens: 120, total_tokens: 160 } })}\n\n`);
        res.end('data: [DONE]\n\n');
      });
    });
    s.listen(0, '127.0.0.1', () => ok(s));
  });
}

let srv, browser, model, url;
before(async () => {
  srv = await startServe();
  browser = await launchBrowser();
  model = await scriptedOllama();
  url = `http://127.0.0.1:${model.address().port}/v1`;
  mkdirSync(artifacts, { recursive: true });
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  model?.close();
});

async function askPage(viewport, colorScheme = 'light') {
  const page = await browser.newPage({ viewport, colorScheme });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.message().startsWith('Delete') ? d.accept() : d.dismiss();
  });
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(srv.url);
  await page.evaluate(() => (location.hash = '#/ask'));
  await page.getByTestId('ask-input').waitFor();
  return { page, errors, dialogs, requests };
}

async function chooseServer(page) {
  await (await serverField(page)).fill(url);
  await page.getByTestId('ask-server-url').press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=ask-model]')?.textContent?.includes('qwen2.5:7b'));
}

test('a hostile answer is rendered as Markdown and runs nothing', async () => {
  const { page, errors, dialogs, requests } = await askPage({ width: 1440, height: 900 });
  await chooseServer(page);
  await page.getByTestId('ask-input').fill('Which region sold most?');
  await page.getByTestId('ask-send').click();

  // While it streams the text is rendered at the size the final answer has.
  // (Read in the page, while the element is attached: a fast replay can
  // finish and replace it between a wait and a separate evaluate, which
  // then reads '' from the detached element.)
  const streamSize = await (await page.waitForFunction(() => {
    const el = document.querySelector('[data-testid=ask-thread] .md');
    return (el && el.isConnected && getComputedStyle(el).fontSize) || false;
  })).jsonValue();
  const answer = page.getByTestId('ask-answer');
  await answer.waitFor({ timeout: 60000 });
  assert.equal(await answer.evaluate((el) => getComputedStyle(el).fontSize), streamSize, 'the streamed and the final answer have one text size');

  assert.equal(await answer.locator('h1').innerText(), 'Findings');
  assert.equal(await answer.locator('strong').first().innerText(), 'South');
  assert.equal(await answer.locator('table td').first().innerText(), 'South');
  assert.equal(await answer.locator('.codeblock .hljs-keyword').first().innerText(), 'import');
  assert.ok((await answer.locator('.katex').count()) >= 2, 'math rendered by KaTeX');
  // KaTeX's fonts are bundled: loaded from the app itself, never a CDN.
  await page.waitForFunction(() => document.fonts.check('16px KaTeX_Main'));

  // Nothing ran, nothing covers the window, nothing was fetched.
  assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
  assert.deepEqual(dialogs, []);
  assert.equal(await page.locator('#cover, [data-testid=ask-thread] script, [data-testid=ask-thread] style, [data-testid=ask-thread] img:not([data-testid=ask-plot])').count(), 0);
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).display), 'block');
  for (const a of await answer.locator('a').all()) {
    const href = await a.getAttribute('href');
    assert.ok(href === null || /^(https?:|mailto:|#)/.test(href), `link ${href}`);
  }
  await answer.getByText('click me').click();
  assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
  assert.ok(!requests.some((r) => r.includes('pixel.png')), 'the image in the answer was not fetched');
  // The question box is still on top at its place: the nav and the input answer clicks.
  const box = await page.getByTestId('ask-input').boundingBox();
  assert.equal(await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.getAttribute('data-testid'), [box.x + 10, box.y + 10]), 'ask-input');

  // Time and speed from the server's usage.
  assert.match(await page.getByTestId('ask-stats').innerText(), /^\d+\.\d s · \d+ tokens\/s · 120 tokens · qwen2\.5:7b$/);
  // Copy the code block.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await answer.locator('.codeblock button[data-copy]').click();
  assert.match(await page.evaluate(() => navigator.clipboard.readText()), /^import pandas as pd\nprint/);
  await page.screenshot({ path: join(artifacts, 'browser-chat-1440-light.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('regenerate, edit-and-resend, rename, search and delete a conversation; it stays open across screens and a reload', async () => {
  const { page, errors, dialogs } = await askPage({ width: 1280, height: 820 });
  await chooseServer(page);
  // The conversation of the first test is listed, with its date.
  const first = page.getByTestId('ask-conversation').first();
  await first.waitFor();
  // Under its date group, with a short title made from the question.
  assert.match(await first.innerText(), /^Which region sold most\s+\S+/);
  assert.equal(await page.getByTestId('ask-date-group').first().innerText(), 'Today');
  await first.locator('button.link').click();
  await page.getByTestId('ask-answer').waitFor();
  await page.getByTestId('ask-reopened').waitFor();
  assert.match(await page.getByTestId('ask-reopened').innerText(), /^Goes on with qwen2\.5:7b at http:\/\/127\.0\.0\.1:\d+\/v1\.$/);

  const before = bodies.length;
  await page.getByTestId('ask-regenerate').click();
  await page.getByTestId('ask-answer').filter({ hasText: 'regenerated' }).waitFor({ timeout: 60000 });
  assert.equal(await page.getByTestId('ask-answer').count(), 1, 'the regenerated answer replaces the old one');
  // The model was not sent the answer it replaces.
  assert.ok(!JSON.stringify(bodies[before].messages).includes('Findings'), 'regenerate sent the old answer');

  await page.getByTestId('ask-question').hover();
  await page.getByTestId('ask-edit').click();
  await page.getByTestId('ask-edit-input').fill('Which region sold least?');
  await page.getByTestId('ask-edit-send').click();
  await page.getByTestId('ask-answer').filter({ hasText: 'The edited question got this.' }).waitFor({ timeout: 60000 });
  assert.deepEqual(await page.getByTestId('ask-question').allInnerTexts(), ['Which region sold least?']);

  // A screen switch and back: the same conversation, still open.
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('model-servers').waitFor();
  // The server typed on Ask is kept in Settings.
  assert.equal(await page.getByTestId('model-server').locator('code').innerText(), url);
  await page.getByTestId('nav-ask').click();
  assert.deepEqual(await page.getByTestId('ask-question').allInnerTexts(), ['Which region sold least?']);
  // A reload (a restart of the window): the conversation opens again.
  await page.reload();
  await page.evaluate(() => (location.hash = '#/ask'));
  await page.getByTestId('ask-question').waitFor();
  assert.deepEqual(await page.getByTestId('ask-question').allInnerTexts(), ['Which region sold least?']);
  await page.waitForFunction((u) => document.querySelector('[data-testid=ask-model]')?.value?.startsWith(u), url);

  // Rename, search, delete.
  const item = page.getByTestId('ask-conversation').first();
  await item.hover();
  await item.getByTestId('ask-rename').click();
  await page.getByTestId('ask-rename-input').fill('Sales by region');
  await page.getByTestId('ask-rename-input').press('Enter');
  await page.getByTestId('ask-conversation').filter({ hasText: 'Sales by region' }).waitFor();
  const kept = await srv.call('ListConversations', 10);
  assert.equal(kept[0].title, 'Sales by region');
  await page.getByTestId('ask-search').fill('nothing-like-this');
  assert.equal(await page.getByTestId('ask-conversation').count(), 0);
  // "least" is in a question, not the title: rehome's search reads them.
  await page.getByTestId('ask-search').fill('least');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=ask-conversation]').length === 1, null, { timeout: 10000 });
  await page.getByTestId('ask-conversation').first().hover();
  await page.getByTestId('ask-delete').first().click();
  // Delete asks in the list itself (no browser confirm box); Keep keeps it.
  await page.getByTestId('ask-delete-no').click();
  assert.equal((await srv.call('ListConversations', 10)).length, 1);
  await page.getByTestId('ask-conversation').first().hover();
  await page.getByTestId('ask-delete').first().click();
  await page.getByTestId('ask-delete-confirm').waitFor();
  await page.screenshot({ path: join(artifacts, 'browser-chat-delete-confirm.png') });
  await page.getByTestId('ask-delete-yes').click();
  await page.waitForFunction(() => !document.querySelector('[data-testid=ask-conversation]'));
  assert.deepEqual(dialogs, [], 'a browser dialog was shown');
  assert.equal((await srv.call('ListConversations', 10)).length, 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('800×600 dark: the question box in view, the sidebar folds, shortcuts and the theme', async () => {
  script = ['A short answer with `code` and a [link](https://example.org/).'];
  asked = 0;
  const { page, errors } = await askPage({ width: 800, height: 600 }, 'dark');
  // The server field's placeholder fits the field.
  const fits = await (await serverField(page)).evaluate((el) => {
    const c = document.createElement('canvas').getContext('2d');
    const st = getComputedStyle(el);
    c.font = `${st.fontSize} ${st.fontFamily}`;
    return c.measureText(el.placeholder).width <= el.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight);
  });
  assert.ok(fits, 'the server field shows its whole placeholder');
  // A dead URL: said once, in one place.
  await (await serverField(page)).fill('http://127.0.0.1:9/v1');
  await page.getByTestId('ask-server-url').press('Enter');
  // Said once: in the no-model card, or beside the field when other models stay listed.
  await page.locator('[data-testid=ask-no-model], [data-testid=ask-url-problem]').filter({ hasText: 'No model server answered at http://127.0.0.1:9/v1' }).waitFor();
  assert.equal(await page.getByTestId('ask-error').count(), 0, 'the dead URL is said once');
  assert.equal(await page.locator('.error').count(), 0);
  await chooseServer(page);
  const inView = async () => {
    const b = await page.getByTestId('ask-input').boundingBox();
    return b && b.y >= 0 && b.y + b.height <= 600;
  };
  assert.ok(await inView(), 'the question box is in view at 800×600');
  assert.equal(await page.evaluate(() => document.scrollingElement.scrollHeight <= innerHeight), true, 'the page itself does not scroll');
  await page.getByTestId('ask-input').fill('Short?');
  await page.getByTestId('ask-send').click();
  await page.getByTestId('ask-answer').waitFor({ timeout: 60000 });
  assert.ok(await inView(), 'still in view with an answer');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark', 'the system is dark: so is the window');
  await page.screenshot({ path: join(artifacts, 'browser-chat-800-dark.png') });

  // Ctrl+B folds the sidebar; Ctrl+/ shows the shortcuts; Ctrl+Shift+O a new conversation.
  const navWidth = () => page.getByTestId('nav').evaluate((n) => n.getBoundingClientRect().width);
  assert.ok((await navWidth()) < 80, 'a narrow window starts with the sidebar folded');
  await page.keyboard.press('Control+b');
  const wide = await navWidth();
  assert.ok(wide > 150, 'Ctrl+B unfolds it');
  await page.keyboard.press('Control+b');
  assert.ok((await navWidth()) < wide / 2, 'and folds it');
  await page.keyboard.press('Control+/');
  await page.getByTestId('shortcut-sheet').waitFor();
  assert.match(await page.getByTestId('shortcut-sheet').innerText(), /Ctrl\+Shift\+O\s+New conversation/);
  await page.screenshot({ path: join(artifacts, 'browser-chat-800-dark-shortcuts.png') });
  await page.keyboard.press('Escape');
  await page.getByTestId('shortcut-sheet').waitFor({ state: 'detached' });
  await page.keyboard.press('Control+Shift+O');
  await page.waitForFunction(() => !document.querySelector('[data-testid=ask-question]'));
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'ask-input');
  await page.keyboard.press('Control+Shift+6');
  await page.getByTestId('appearance').waitFor();
  // The theme chosen in Settings wins over the system's, and is kept.
  await page.getByTestId('theme-light').check();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
  await page.reload();
  await page.waitForSelector('nav');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
  assert.ok((await navWidth()) < wide / 2, 'the folded sidebar is kept');
  await page.screenshot({ path: join(artifacts, 'browser-chat-800-light-settings.png') });
  assert.deepEqual(errors, []);
  await page.close();
});
