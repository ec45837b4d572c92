// The canvas in a browser, through the bridge, against llama.cpp's real
// llama-server serving the tiny model taught to call create_textdoc and
// then update_textdoc (tinymodel.CanvasScript): the pane opens beside the
// chat with the model's textdoc at version 2; the user edits it (version
// 3), sees the diff, restores version 1. A code canvas (tinymodel.
// CodeCanvasScript: print(6 * 7)) runs in the conversation's sandbox
// session: 42 under it; code that sleeps for minutes is stopped with the
// canvas's Stop, and the session keeps its variables. Without
// llama-server: skipped.
//
// Screenshots: $ARTIFACTS/browser-canvas.png, browser-canvas-run.png,
// browser-canvas-stopped.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startServe, launchBrowser, artifacts, startLlama, chosenModel, serverField } from './harness.mjs';

let srv, browser, llama;

before(async () => {
  llama = await startLlama({ script: 'canvas' });
  if (llama.skip) return;
  srv = await startServe();
  browser = await launchBrowser();
  mkdirSync(artifacts, { recursive: true });
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  llama?.stop?.();
});

test('the model writes a canvas; the user edits it, diffs and restores', async (t) => {
  if (llama.skip) return t.skip(llama.skip);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // The real model's turns on a loaded machine (2 cores, other tests): a
  // step may take longer than Playwright's 30 s default.
  page.setDefaultTimeout(90000);
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(srv.url);
  await page.evaluate(() => (location.hash = '#/ask'));
  await (await serverField(page)).fill(llama.url);
  await page.getByTestId('ask-server-url').press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=ask-model]')?.textContent?.includes('rehome-tiny'));
  assert.equal(await chosenModel(page, `${llama.url}|rehome-tiny`), `${llama.url}|rehome-tiny`);
  await page.getByTestId('ask-input').fill('Plan my trip in a canvas, then make it Lyon.');
  await page.getByTestId('ask-send').click();
  await page.getByTestId('canvas-pane').waitFor({ timeout: 120000 });
  assert.match(await page.getByTestId('canvas-document').innerText(), /Day 1: Lyon/);
  assert.match(await page.getByTestId('canvas-version').innerText(), /version 2 by model/);
  await page.getByTestId('canvas-edit').click();
  await page.getByTestId('canvas-text').fill('Day 1: Lyon\n\nDay 2: **Annecy**');
  await page.getByTestId('canvas-save').click();
  await page.getByTestId('canvas-version').filter({ hasText: 'version 3 by user' }).waitFor();
  assert.equal(await page.locator('[data-testid=canvas-document] strong').innerText(), 'Annecy');
  await page.locator('[data-testid=canvas-pane] details summary').click();
  await page.getByTestId('canvas-diff').first().click();
  assert.match(await page.getByTestId('canvas-diff-text').innerText(), /\+Day 2: \*\*Annecy\*\*/);
  await page.getByTestId('canvas-restore').last().click();
  await page.getByTestId('canvas-version').filter({ hasText: 'version 4 by restore' }).waitFor();
  assert.match(await page.getByTestId('canvas-document').innerText(), /Day 1: Paris/);
  await page.screenshot({ path: join(artifacts, 'browser-canvas.png'), fullPage: true });
  const convs = await srv.call('ListConversations', 10);
  const conv = await srv.call('GetConversation', convs[0].id);
  assert.equal(conv.canvas[0].versions.length, 4);
  assert.deepEqual(errors, []);
});

test('a code canvas runs in the conversation\'s sandbox session', async (t) => {
  if (llama.skip) return t.skip(llama.skip);
  const code = await startLlama({ script: 'code-canvas' });
  t.after(() => code.stop());
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(90000);
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(srv.url);
  await page.evaluate(() => (location.hash = '#/ask'));
  // The first test's server is kept in Settings: the URL field is behind Servers… now (issue 33's timeout).
  await (await serverField(page)).fill(code.url);
  await page.getByTestId('ask-server-url').press('Enter');
  await page.waitForFunction((u) => [...document.querySelectorAll('[data-testid=ask-model] option')].some((o) => o.value === `${u}|rehome-tiny`), code.url);
  await page.getByTestId('ask-model').selectOption(`${code.url}|rehome-tiny`);
  await page.getByTestId('ask-input').fill('Write Python that prints the answer in a canvas.');
  await page.getByTestId('ask-send').click();
  await page.getByTestId('canvas-pane').waitFor({ timeout: 120000 });
  assert.match(await page.getByTestId('canvas-code').innerText(), /print\(6 \* 7\)/);
  await page.getByTestId('canvas-run').click();
  await page.getByTestId('canvas-stdout').waitFor({ timeout: 180000 });
  assert.equal((await page.getByTestId('canvas-stdout').innerText()).trim(), '42');
  assert.match(await page.getByTestId('canvas-run-line').innerText(), /version 1 ran as cell 1 of the conversation's session · exit 0/);
  await page.screenshot({ path: join(artifacts, 'browser-canvas-run.png'), fullPage: true });

  // Code that would run for minutes: Stop interrupts it (KeyboardInterrupt), what it printed stays, and the
  // session keeps its variables (the next run sees the one the stopped code set).
  await page.getByTestId('canvas-edit').click();
  await page.getByTestId('canvas-text').fill("import time\nx = 6 * 7\nprint('started', flush=True)\ntime.sleep(600)");
  await page.getByTestId('canvas-save').click();
  await page.getByTestId('canvas-version').filter({ hasText: 'version 2 by user' }).waitFor();
  await page.getByTestId('canvas-run').click();
  await page.getByTestId('canvas-stop').waitFor();
  await page.waitForTimeout(3000);
  const stopped = Date.now();
  await page.getByTestId('canvas-stop').click();
  await page.getByTestId('canvas-run-line').filter({ hasText: 'version 2 ran as cell 2' }).waitFor({ timeout: 60000 });
  assert.ok(Date.now() - stopped < 30000, `Stop took ${Date.now() - stopped} ms`);
  assert.match(await page.getByTestId('canvas-run-line').innerText(), /cell 2 of the conversation's session · stopped/);
  assert.match(await page.getByTestId('canvas-stderr').innerText(), /KeyboardInterrupt/);
  assert.equal(await page.getByTestId('canvas-stop').count(), 0);
  await page.screenshot({ path: join(artifacts, 'browser-canvas-stopped.png'), fullPage: true });
  await page.getByTestId('canvas-edit').click();
  await page.getByTestId('canvas-text').fill('print(x + 1)');
  await page.getByTestId('canvas-save').click();
  await page.getByTestId('canvas-version').filter({ hasText: 'version 3 by user' }).waitFor();
  await page.getByTestId('canvas-run').click();
  await page.getByTestId('canvas-run-line').filter({ hasText: 'version 3 ran as cell 3' }).waitFor({ timeout: 180000 });
  assert.equal((await page.getByTestId('canvas-stdout').innerText()).trim(), '43');
  assert.deepEqual(errors, []);
});
