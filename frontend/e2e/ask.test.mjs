// Ask in words in a browser (`rehome serve`, headless Chromium): with no
// model server the screen says how to start one; against a loopback server
// that replays a recorded Ollama answer (backend/llm/testdata), a question
// about a CSV that came in through the file input streams back, the cell
// runs in the real Podman sandbox, the plot shows inline under the answer,
// and the conversation is kept and listed.
//
// Needs Podman and the sandbox image, as a user's machine does.
// Screenshots land in $ARTIFACTS as browser-ask-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startServe, launchBrowser, artifacts, recordedOllama, testdata, chosenModel, serverField } from './harness.mjs';

let srv, browser, model;

before(async () => {
  srv = await startServe();
  browser = await launchBrowser();
  model = await recordedOllama('ollama-tools');
  mkdirSync(artifacts, { recursive: true });
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  model?.close();
});

test('a question about a CSV comes back answered, with its plot, from a recorded Ollama and the real sandbox', async () => {
  // A generous time limit: a loaded machine takes long to import pandas.
  const lim = await srv.call('RunLimits');
  await srv.call('SetRunLimits', { ...lim, timeout_ns: 120e9 });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(srv.url);
  await page.evaluate(() => (location.hash = '#/ask'));
  await page.getByTestId('ask-input').waitFor();
  // With nothing on this machine's default ports the screen says how to
  // start a server (another program may hold one of those ports here).
  if ((await srv.call('LLMStatus', '')).length === 0) {
    await page.getByTestId('ask-no-model').waitFor({ timeout: 15000 });
    assert.match(await page.getByTestId('ask-no-model').innerText(), /ollama pull/);
  }

  const url = `http://127.0.0.1:${model.address().port}/v1`;
  await (await serverField(page)).fill(url);
  await page.getByTestId('ask-server-url').press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=ask-model]')?.textContent?.includes('qwen2.5:7b'));
  assert.equal(await chosenModel(page, `${url}|qwen2.5:7b`), `${url}|qwen2.5:7b`, 'the tool-calling model is chosen');

  await page.setInputFiles('[data-testid=ask-file-input]', join(testdata, 'sales.csv'));
  await page.getByText('sales.csv').first().waitFor();
  await page.getByTestId('ask-input').fill('Which region had the most revenue?');
  await page.getByTestId('ask-send').click();
  await page.getByTestId('ask-stop-button').waitFor(); // Stop while it answers
  await page.getByTestId('ask-answer').waitFor({ timeout: 240000 });
  assert.match(await page.getByTestId('ask-answer').innerText(), /^South had the most revenue: 230\.0\./);
  // The cell is folded, with the code and its real output inside (its
  // summary says why when it could not run).
  const cell = page.getByTestId('ask-cell');
  assert.match(await cell.locator('summary').innerText(), /ran, 1 plot/);
  const plot = page.getByTestId('ask-plot');
  await plot.waitFor();
  const size = await plot.evaluate((img) => [img.naturalWidth, img.naturalHeight]);
  assert.ok(size[0] > 100 && size[1] > 100, `the plot renders (${size})`);
  await cell.locator('summary').click();
  assert.match(await cell.innerText(), /South\s+230\.0/);
  await page.screenshot({ path: join(artifacts, 'browser-ask-answer.png'), fullPage: true });

  const convs = await srv.call('ListConversations', 10);
  assert.equal(convs.length, 1);
  assert.equal(convs[0].model, 'qwen2.5:7b');
  const conv = await srv.call('GetConversation', convs[0].id);
  assert.equal(conv.exchanges[0].turns[0].cells[0].result.exit_code, 0);
  const md = await srv.call('ExportConversation', convs[0].id, 'md');
  assert.match(md, /```python\nimport pandas/);
  assert.deepEqual(errors, []);
});

test('two dropped CSVs, two cells in one session: the second uses what the first defined, and the answer comes with its plot', async () => {
  const lim = await srv.call('RunLimits');
  await srv.call('SetRunLimits', { ...lim, timeout_ns: 120e9 });
  const state = await recordedOllama('session-state');
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(srv.url);
    await page.evaluate(() => (location.hash = '#/ask'));
    await page.getByTestId('ask-new').click();
    const url = `http://127.0.0.1:${state.address().port}/v1`;
    await (await serverField(page)).fill(url);
    await page.getByTestId('ask-server-url').press('Enter');
    await page.waitForFunction(() => document.querySelector('[data-testid=ask-model]')?.textContent?.includes('qwen2.5:7b'));

    // Drop both files at once on the files area, as from a file manager.
    const texts = ['sales.csv', 'targets.csv'].map((f) => [f, readFileSync(join(testdata, f), 'utf8')]);
    const dt = await page.evaluateHandle((files) => {
      const dt = new DataTransfer();
      for (const [name, text] of files) dt.items.add(new File([text], name, { type: 'text/csv' }));
      return dt;
    }, texts);
    await page.dispatchEvent('[aria-label=Files]', 'drop', { dataTransfer: dt });
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=ask-file-chip]').length === 2);

    await page.getByTestId('ask-input').fill('Which region beat its target by the most?');
    await page.getByTestId('ask-send').click();
    await page.getByTestId('ask-answer').waitFor({ timeout: 240000 });
    assert.equal(await page.getByTestId('ask-answer').innerText(), 'East beat its target by the most: 21.0.');
    const cells = page.getByTestId('ask-cell');
    assert.equal(await cells.count(), 2);
    assert.match(await cells.nth(0).locator('summary').innerText(), /ran/);
    await cells.nth(1).locator('summary').click();
    // Cell 2 used sales and targets from cell 1 without reading them again.
    assert.match(await cells.nth(1).innerText(), /East\s+21\.0/);
    assert.doesNotMatch(await cells.nth(1).locator('pre.code').innerText(), /read_csv/);
    const plot = page.getByTestId('ask-plot');
    await plot.waitFor();
    const size = await plot.evaluate((img) => [img.naturalWidth, img.naturalHeight]);
    assert.ok(size[0] > 100 && size[1] > 100, `the plot renders (${size})`);
    await page.screenshot({ path: join(artifacts, 'browser-ask-session.png'), fullPage: true });

    const convs = await srv.call('ListConversations', 10);
    const conv = await srv.call('GetConversation', convs.find((c) => c.title.startsWith('Which region beat')).id);
    assert.deepEqual(conv.files.map((f) => f.path), ['/mnt/data/sales.csv', '/mnt/data/targets.csv']);
    const [c1, c2] = conv.exchanges[0].turns.flatMap((t) => t.cells ?? []);
    assert.match(c1.result.stdout, /6 sales rows, 3 targets/);
    assert.ok(c1.result.session_id && c1.result.session_id === c2.result.session_id, 'one session');
    assert.equal(c2.result.cell, 2);
    // The conversation's session runs until the conversation goes.
    const running = () => execFileSync('podman', ['ps', '-a', '-q', '--filter', `label=io.rehome.session=${c1.result.session_id}`]).toString().trim();
    assert.notEqual(running(), '', 'the session runs while the conversation is open');
    await srv.call('DeleteConversation', conv.id);
    assert.equal(running(), '', 'the session is gone with its conversation');
    assert.deepEqual(errors, []);
  } finally {
    state.close();
  }
});

test("an assistant's default model: made default on the screen, chosen again with the assistant; the chosen model's fit said", async () => {
  const ollama = await recordedOllama('drop');
  try {
    const as = await srv.call('CreateAssistant', { name: 'Sales', description: '', instructions: 'Be brief.', starters: [], knowledge: [], capabilities: [], actions: [], remote_files: [], notes: '' });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(srv.url);
    await page.evaluate(() => (location.hash = '#/ask'));
    const url = `http://127.0.0.1:${ollama.address().port}/v1`;
    await (await serverField(page)).fill(url);
    await page.getByTestId('ask-server-url').press('Enter');
    await page.waitForFunction(() => document.querySelector('[data-testid=ask-model]')?.textContent?.includes('gemma2:2b'));
    await page.getByTestId('ask-assistant').selectOption(as.id);
    assert.equal(await chosenModel(page, `${url}|qwen2.5:7b`), `${url}|qwen2.5:7b`, 'no default yet: the tool-calling model');
    await page.getByTestId('ask-model').selectOption(`${url}|gemma2:2b`);
    await page.getByTestId('ask-make-default').click();
    await page.getByTestId('ask-default-saved').waitFor();
    const stored = (await srv.call('ListAssistants')).find((a) => a.id === as.id);
    assert.equal(stored.model, 'gemma2:2b');
    // Another assistant, then this one again: its default is chosen.
    await page.getByTestId('ask-assistant').selectOption('');
    await page.getByTestId('ask-model').selectOption(`${url}|qwen2.5:7b`);
    await page.getByTestId('ask-assistant').selectOption(as.id);
    await page.waitForFunction((v) => document.querySelector('[data-testid=ask-model]')?.value === v, `${url}|gemma2:2b`);
    // The fit line, where the catalog says the chosen model will not fit here.
    await page.getByTestId('ask-model').selectOption(`${url}|qwen2.5:7b`);
    const fit = (await srv.call('LLMStatus', url))[0].models.find((m) => m.id === 'qwen2.5:7b').fit;
    if (fit.startsWith('will not fit')) {
      assert.match(await page.getByTestId('ask-fit').innerText(), /^qwen2\.5:7b will not fit in your VRAM .*: expect about [\d.]+ tok\/s on the CPU/);
    } else {
      assert.equal(await page.getByTestId('ask-fit').count(), 0);
    }
    assert.deepEqual(errors, []);
  } finally {
    ollama.close();
  }
});
