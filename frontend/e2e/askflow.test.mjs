// Ask as chat apps do it, in a browser (`rehome serve`, headless Chromium),
// against a scripted model server on a loopback port (Ollama's wire, the
// discovery fixtures of backend/llm/testdata): Stop keeps the part of the
// answer that came (shown, kept, marked stopped), Esc stops an answer, Stop
// stays where Ask was once Export shows, Export asks the format and
// downloads it, and the conversation list shows date groups, short titles
// and each conversation's assistant. No code runs: no Podman needed.
// Screenshots in $ARTIFACTS: browser-askflow-*.png (1280×800, 900×620).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { startServe, launchBrowser, artifacts, testdata } from './harness.mjs';

// "slow": pieces every 150 ms for a minute (Stop ends it); else a short answer.
let mode = 'short';
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
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        const chunk = (content, finish) =>
          `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1744438890, model: 'qwen2.5:7b', choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: finish }] })}\n\n`;
        let gone = false;
        res.on('close', () => (gone = true));
        if (mode === 'slow') {
          for (let i = 0; i < 400 && !gone; i++) {
            res.write(chunk(i === 0 ? 'South sold the most, ' : `word${i} `, null));
            await new Promise((r) => setTimeout(r, 150));
          }
        } else {
          res.write(chunk('A short answer.', null));
        }
        if (gone) return;
        res.write(chunk('', 'stop'));
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

async function askPage(viewport) {
  const page = await browser.newPage({ viewport, acceptDownloads: true });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss();
  });
  await page.goto(srv.url);
  await page.evaluate(() => (location.hash = '#/ask'));
  await page.getByTestId('ask-input').waitFor();
  // With no model found the server field is offered; else it opens from
  // the header's Servers… button.
  await page.waitForFunction(() => document.querySelector('[data-testid=ask-server-url]') || document.querySelector('[data-testid=ask-model]'));
  if (!(await page.getByTestId('ask-server-url').count())) await page.getByTestId('ask-servers').click();
  await page.getByTestId('ask-server-url').fill(url);
  await page.getByTestId('ask-server-url').press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=ask-model]')?.textContent?.includes('qwen2.5:7b'));
  return { page, errors, dialogs };
}

const box = async (page, id) => page.getByTestId(id).boundingBox();

test('Stop keeps the part of the answer that came, Esc stops, and Stop does not move when Export shows', async () => {
  const sh = await srv.call('CreateAssistant', { name: 'Sales Analyst' });
  const { page, errors, dialogs } = await askPage({ width: 1280, height: 800 });
  await page.getByTestId('ask-assistant').selectOption(sh.id);
  assert.equal(await page.getByTestId('ask-export').count(), 0);
  const askAt = await box(page, 'ask-send');

  mode = 'slow';
  await page.getByTestId('ask-input').fill('Which region sold most?');
  await page.getByTestId('ask-send').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=ask-thread]')?.textContent?.includes('word3'), null, { timeout: 30000 }).catch(async (e) => {
    await page.screenshot({ path: join(artifacts, 'browser-askflow-failed.png') });
    throw e;
  });
  await page.getByTestId('ask-stop-button').click();
  const answer = page.getByTestId('ask-answer');
  await answer.waitFor({ timeout: 20000 });
  assert.match(await answer.innerText(), /^South sold the most, word1 word2 word3/);
  assert.equal(await page.getByTestId('ask-stop').innerText(), 'Stopped: the part of the answer that came is kept.');
  // Kept in the conversation, marked stopped.
  const [c] = await srv.call('ListConversations', 10);
  const kept = await srv.call('GetConversation', c.id);
  assert.equal(kept.exchanges[0].stopped, 'canceled');
  assert.match(kept.exchanges[0].answer, /^South sold the most, word1 word2 word3/);
  await page.screenshot({ path: join(artifacts, 'browser-askflow-stopped-1280.png') });

  // Export now shows; Ask — and Stop, while it answers — stay where Ask was.
  await page.getByTestId('ask-export').waitFor();
  assert.deepEqual(await box(page, 'ask-send'), askAt, 'Ask moved when Export appeared');
  await page.getByTestId('ask-input').fill('And the least?');
  await page.getByTestId('ask-send').click();
  await page.getByTestId('ask-stop-button').waitFor();
  const stopAt = await box(page, 'ask-stop-button');
  assert.equal(Math.round(stopAt.x + stopAt.width), Math.round(askAt.x + askAt.width), 'Stop is not where Ask was');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=ask-thread]')].some((t) => (t.textContent.match(/word2 /g) ?? []).length >= 2), null, { timeout: 30000 });
  // Esc, from the question box, stops it.
  await page.getByTestId('ask-input').focus();
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=ask-answer]').length === 2, null, { timeout: 20000 });
  assert.equal((await srv.call('GetConversation', c.id)).exchanges[1].stopped, 'canceled');
  mode = 'short';

  // The list: a date group, a short title, the assistant.
  const item = page.getByTestId('ask-conversation').first();
  assert.equal(await page.getByTestId('ask-date-group').first().innerText(), 'Today');
  assert.equal(await item.getByTestId('ask-conversation-title').innerText(), 'Which region sold most');
  assert.equal(await item.getByTestId('ask-conversation-assistant').innerText(), 'Sales Analyst');

  // Export asks the format and downloads it, and says so.
  await page.getByTestId('ask-export').click();
  await page.getByTestId('export-dialog').waitFor();
  await page.screenshot({ path: join(artifacts, 'browser-askflow-export-1280.png') });
  await page.getByTestId('export-json').check();
  const dl = page.waitForEvent('download');
  await page.getByTestId('export-go').click();
  const file = await dl;
  assert.match(file.suggestedFilename(), /^Which region sold most.*\.json$/);
  const text = readFileSync(await file.path(), 'utf8');
  assert.equal(JSON.parse(text).id, c.id);
  assert.match(await page.getByTestId('ask-export-note').innerText(), /^Downloaded Which region sold most.*\.json/);
  assert.equal(await page.getByTestId('export-dialog').count(), 0);
  // Esc closes the dialog without exporting.
  await page.getByTestId('ask-export').click();
  await page.getByTestId('export-dialog').waitFor();
  await page.keyboard.press('Escape');
  await page.getByTestId('export-dialog').waitFor({ state: 'detached' });

  assert.deepEqual(dialogs, []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('at 900×620 the Ask header is one row and the question box is in view', async () => {
  const { page, errors } = await askPage({ width: 900, height: 620 });
  const ids = ['ask-assistant', 'ask-model'];
  const tops = await Promise.all(ids.map(async (id) => Math.round((await box(page, id)).y)));
  assert.ok(Math.max(...tops) - Math.min(...tops) < 12, `the header wraps: ${ids.map((id, i) => `${id}@${tops[i]}`).join(' ')}`);
  // Adding a server is on the model line under the header (issue 31), in view.
  const add = await box(page, 'ask-servers');
  assert.ok(add.y > Math.max(...tops) && add.x + add.width <= 900, `Add a server… at ${JSON.stringify(add)}`);
  const q = await box(page, 'ask-input');
  assert.ok(q.y + q.height <= 620, 'the question box is out of view');
  await page.screenshot({ path: join(artifacts, 'browser-askflow-900.png') });
  assert.deepEqual(errors, []);
  await page.close();
});
