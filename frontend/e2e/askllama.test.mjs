// Ask in words in a browser against llama.cpp's real llama-server serving
// the tests' tiny hand-set model (internal/testsupport/tinymodel): the model streams
// a python tool call, the cell runs in the real Podman sandbox on the CSV
// that came in through the file input, the plot shows inline, the model
// answers. llama-server comes from $REHOME_LLAMA_SERVER or the cached build
// (`make llama`); without it the test says skipped, or fails when
// REHOME_REQUIRE_LLAMA is set.
//
// Screenshot: $ARTIFACTS/browser-ask-llama.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startServe, launchBrowser, artifacts, startLlama, testdata, chosenModel, serverField } from './harness.mjs';

let srv, browser, llama, why;

before(async () => {
  llama = await startLlama();
  if (llama.skip) {
    why = llama.skip;
    return;
  }
  srv = await startServe();
  browser = await launchBrowser();
  mkdirSync(artifacts, { recursive: true });
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  llama?.stop?.();
});

test('a question about a CSV comes back answered, with its plot, from the real llama-server and the real sandbox', async (t) => {
  if (why) return t.skip(why);
  const lim = await srv.call('RunLimits');
  await srv.call('SetRunLimits', { ...lim, timeout_ns: 120e9 });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(srv.url);
  await page.evaluate(() => (location.hash = '#/ask'));
  await page.getByTestId('ask-input').waitFor();

  await (await serverField(page)).fill(llama.url);
  await page.getByTestId('ask-server-url').press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=ask-model]')?.textContent?.includes('rehome-tiny'));
  assert.equal(await chosenModel(page, `${llama.url}|rehome-tiny`), `${llama.url}|rehome-tiny`);

  await page.setInputFiles('[data-testid=ask-file-input]', join(testdata, 'sales.csv'));
  await page.getByText('sales.csv').first().waitFor();
  await page.getByTestId('ask-input').fill('Which region had the most revenue?');
  await page.getByTestId('ask-send').click();
  await page.getByTestId('ask-answer').waitFor({ timeout: 240000 });
  assert.match(await page.getByTestId('ask-answer').innerText(), /The summary of sales\.csv is above: .* summed by region\./);
  const plot = page.getByTestId('ask-plot');
  await plot.waitFor();
  const size = await plot.evaluate((img) => [img.naturalWidth, img.naturalHeight]);
  assert.ok(size[0] > 100 && size[1] > 100, `the plot renders (${size})`);
  const cell = page.getByTestId('ask-cell');
  assert.match(await cell.locator('summary').innerText(), /ran, 1 plot/);
  await cell.locator('summary').click();
  assert.match(await cell.innerText(), /read_csv\('\/mnt\/data\/sales\.csv'\)/);
  assert.match(await cell.innerText(), /revenue/);
  await page.screenshot({ path: join(artifacts, 'browser-ask-llama.png'), fullPage: true });

  const convs = await srv.call('ListConversations', 10);
  assert.equal(convs.length, 1);
  assert.equal(convs[0].model, 'rehome-tiny');
  const conv = await srv.call('GetConversation', convs[0].id);
  assert.equal(conv.exchanges[0].turns[0].cells[0].result.exit_code, 0);
  assert.deepEqual(errors, []);
});
