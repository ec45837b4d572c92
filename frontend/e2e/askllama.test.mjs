// Ask in words in a browser against llama.cpp's real llama-server serving
// the tests' tiny hand-set model (backend/llm/tinymodel): the model streams
// a python tool call, the cell runs in the real Podman sandbox on the CSV
// that came in through the file input, the plot shows inline, the model
// answers. llama-server comes from $REHOME_LLAMA_SERVER or the cached build
// (`make llama`); without it the test says skipped, or fails when
// REHOME_REQUIRE_LLAMA is set.
//
// Screenshot: $ARTIFACTS/browser-ask-llama.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { startServe, launchBrowser, artifacts } from './harness.mjs';

const root = resolve('..');
const testdata = join(root, 'backend/llm/testdata');
let srv, browser, llama, dir, why;

function llamaServer() {
  if (process.env.REHOME_LLAMA_SERVER) return existsSync(process.env.REHOME_LLAMA_SERVER) ? process.env.REHOME_LLAMA_SERVER : null;
  try {
    return execFileSync('bash', [join(root, 'build/llm/llama-server.sh'), '--find'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (e) {
    return null;
  }
}

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => ok(p)); });
  });
}

before(async () => {
  const bin = llamaServer();
  if (!bin) {
    why = 'no llama-server: `make llama` builds it, or set REHOME_LLAMA_SERVER';
    if (process.env.REHOME_REQUIRE_LLAMA) throw new Error(`REHOME_REQUIRE_LLAMA is set but there is ${why}`);
    return;
  }
  dir = mkdtempSync(join(tmpdir(), 'rehome-askllama-'));
  const model = join(dir, 'tiny.gguf');
  execFileSync('go', ['run', './backend/llm/tinymodel/cmd/tinymodel', '-src', dirname(bin), '-o', model], { cwd: root, stdio: 'inherit' });
  const port = await freePort();
  llama = spawn(bin, ['-m', model, '--host', '127.0.0.1', '--port', String(port), '--jinja', '-c', '4096',
    '--threads', '1', '-np', '1', '--no-webui', '--alias', 'rehome-tiny'], { stdio: 'ignore' });
  llama.url = `http://127.0.0.1:${port}/v1`;
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  srv = await startServe();
  browser = await launchBrowser();
  mkdirSync(artifacts, { recursive: true });
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  llama?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
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

  await page.getByTestId('ask-server-url').fill(llama.url);
  await page.getByTestId('ask-server-url').press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=ask-model]')?.textContent?.includes('rehome-tiny'));
  assert.equal(await page.getByTestId('ask-model').inputValue(), `${llama.url}|rehome-tiny`);

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
  assert.equal(convs[0].exchanges[0].turns[0].cells[0].result.exit_code, 0);
  assert.deepEqual(errors, []);
});
