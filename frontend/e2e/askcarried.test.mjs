// The Ask screen with only a carried model (no model server running): the
// model list offers it, a brand-new conversation (no id yet) shows what
// starting it waits for ("starting tiny…", "tiny is ready") while rehome
// starts its own llama-server, and the answer comes back with the cell run
// in the real sandbox. Needs llama-server ($REHOME_LLAMA_SERVER or `make
// llama`; skipped without it, failing when REHOME_REQUIRE_LLAMA is set) and
// Podman.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, launchBrowser, bin, root, testdata } from './harness.mjs';

let srv, browser, why, scratch;

function llamaServer() {
  if (process.env.REHOME_LLAMA_SERVER) return existsSync(process.env.REHOME_LLAMA_SERVER) ? process.env.REHOME_LLAMA_SERVER : null;
  try {
    return execFileSync('bash', [join(root, 'build/llm/llama-server.sh'), '--find'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

before(async () => {
  const llama = llamaServer();
  if (!llama) {
    why = 'no llama-server: `make llama` builds it, or set REHOME_LLAMA_SERVER';
    if (process.env.REHOME_REQUIRE_LLAMA) throw new Error(`REHOME_REQUIRE_LLAMA is set but there is ${why}`);
    return;
  }
  scratch = mkdtempSync(join(tmpdir(), 'rehome-carried-e2e-'));
  const home = join(scratch, 'home');
  const model = join(scratch, 'tiny.gguf');
  execFileSync('go', ['run', './internal/testsupport/tinymodel/cmd/tinymodel', '-o', model, '-csv', 'sales.csv', '-group', 'region', '-value', 'revenue'], { cwd: root, stdio: 'inherit' });
  execFileSync(bin, ['models', 'add', model], { env: { ...process.env, REHOME_HOME: home }, stdio: 'inherit' });
  const saved = process.env.REHOME_LLAMA_SERVER;
  process.env.REHOME_LLAMA_SERVER = llama;
  try {
    srv = await startServe({ home });
  } finally {
    if (saved === undefined) delete process.env.REHOME_LLAMA_SERVER;
    else process.env.REHOME_LLAMA_SERVER = saved;
  }
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('a new conversation with a carried model shows the model starting, then the answer', async (t) => {
  if (why) return t.skip(why);
  const lim = await srv.call('RunLimits');
  await srv.call('SetRunLimits', { ...lim, timeout_ns: 120e9 });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(srv.url);
  // Hardware lists it with its size said once ("42.8 MiB GiB" was issue 31's).
  await page.evaluate(() => (location.hash = '#/hardware'));
  const row = await page.getByTestId('carried-model').first().innerText();
  assert.match(row, / · [\d.]+ (KiB|MiB|GiB) · \d+ layers · /, row);
  assert.doesNotMatch(row, /iB GiB/, row);
  await page.evaluate(() => (location.hash = '#/ask'));
  await page.getByTestId('ask-input').waitFor();
  // No file yet: the box does not say "your file" (issue 31).
  assert.equal(await page.getByTestId('ask-input').getAttribute('placeholder'), 'Ask a question…');
  // The carried model is offered: a "server" with no URL that rehome starts.
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=ask-model] option')].some((o) => o.value === '|tiny'));
  assert.match(await page.locator('[data-testid=ask-model] option[value="|tiny"]').innerText(), /tiny · carried model, started by rehome/);
  await page.getByTestId('ask-model').selectOption('|tiny');

  // Every note the screen shows while it answers, as it shows it.
  await page.evaluate(() => {
    window.__notes = [];
    new MutationObserver(() => {
      const n = document.querySelector('[data-testid=ask-note]')?.textContent;
      if (n && window.__notes.at(-1) !== n) window.__notes.push(n);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.setInputFiles('[data-testid=ask-file-input]', join(testdata, 'sales.csv'));
  await page.getByText('sales.csv').first().waitFor();
  assert.equal(await page.getByTestId('ask-input').getAttribute('placeholder'), 'Ask about your file…');
  await page.getByTestId('ask-input').fill('Which region had the most revenue?');
  await page.getByTestId('ask-send').click();
  await page.getByTestId('ask-answer').waitFor({ timeout: 240000 });
  const notes = await page.evaluate(() => window.__notes);
  assert.ok(notes.some((n) => /^starting tiny \(cpu/.test(n)), `the start of the model was shown: ${JSON.stringify(notes)}`);
  assert.ok(notes.some((n) => /^tiny is ready \([\d.]+ s\)$/.test(n)), `its readiness was shown: ${JSON.stringify(notes)}`);
  assert.match(await page.getByTestId('ask-answer').innerText(), /summed by region/);
  const convs = await srv.call('ListConversations', 10);
  assert.equal(convs.length, 1);
  assert.equal(convs[0].model, 'tiny');
  assert.deepEqual(errors, []);
});

// No llama-server anywhere rehome looks: Ask says so in its error box, the
// commands in it as code, not raw backticks (issue 31's broken details).
test('a carried model with no llama-server: the error box says how to get one, its commands as code', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rehome-noruntime-e2e-'));
  const home = join(dir, 'home');
  const model = join(dir, 'tiny.gguf');
  execFileSync('go', ['run', './internal/testsupport/tinymodel/cmd/tinymodel', '-o', model], { cwd: root, stdio: 'inherit' });
  execFileSync(bin, ['models', 'add', model], { env: { ...process.env, REHOME_HOME: home }, stdio: 'inherit' });
  const none = await startServe({ home, env: { REHOME_LLAMA_SERVER: '', REHOME_LLAMA_SERVER_VULKAN: '', REHOME_LLAMA_DIR: '', REHOME_CACHE: join(dir, 'cache') } });
  const b = browser ?? (await launchBrowser());
  try {
    const page = await b.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(none.url);
    await page.evaluate(() => (location.hash = '#/ask'));
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=ask-model] option')].some((o) => o.value === '|tiny'));
    await page.getByTestId('ask-model').selectOption('|tiny');
    await page.getByTestId('ask-input').fill('Hello?');
    await page.getByTestId('ask-send').click();
    const box = page.getByTestId('ask-error');
    await box.waitFor({ timeout: 60000 });
    assert.match(await box.textContent(), /no llama-server runtime is installed/);
    assert.equal(await box.locator('code').first().textContent(), 'make llama');
    assert.doesNotMatch(await box.textContent(), /`/);
    await page.close();
  } finally {
    if (b !== browser) await b.close();
    await none.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
