// A citation chip opens a carried library's article inside the window, in
// a real browser against `rehome serve`: a real ZIM (zimwriterfs over pages
// of Debian's Python 3.11 docs, the json page carrying a hostile part this
// test adds: an inline script, a tracking pixel, a stylesheet, a frame and a
// styled background, all pointing at a loopback server that counts what
// reaches it) carried with `rehome library add` and served by the real
// kiwix-serve; an assistant with web browsing asked through the real loop,
// the model's side replayed from the wire of the real llama-server
// (backend/llm/testdata/browse-tools: web_search, open_url into the ZIM,
// an answer citing [1] and [2]); the open_url's text read in the real
// sandbox. The chip [1] opens the json article in rehome's reader: its text
// shows, its script did not run, nothing was loaded from anywhere, a link
// to another page of the library opens in place (Back returns), a web link
// is not followed until the user says so.
//
// Needs Podman and the sandbox image (open_url reads the page in the
// sandbox), zim-tools, kiwix-tools and python3.11-doc.
// Screenshot: $ARTIFACTS/browser-zim-reader.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, launchBrowser, openApp, artifacts, bin, recordedOllama, chosenModel } from './harness.mjs';
import { countingServer, hostileZim } from './zimfixture.mjs';

let srv, browser, model, tracker, home, work, zim;

before(async () => {
  // What an article must never reach: every request to it is counted.
  tracker = await countingServer();
  ({ zim, work } = hostileZim(`http://127.0.0.1:${tracker.address().port}`));
  home = mkdtempSync(join(tmpdir(), 'rehome-e2e-'));
  execFileSync(bin, ['library', 'add', zim, '--name', 'py'], { env: { ...process.env, REHOME_HOME: home }, stdio: 'pipe' });
  srv = await startServe({ home });
  model = await recordedOllama('browse-tools');
  browser = await launchBrowser();
  mkdirSync(artifacts, { recursive: true });
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  model?.close();
  tracker?.close();
  if (home) rmSync(home, { recursive: true, force: true });
  if (work) rmSync(work, { recursive: true, force: true });
});

test('a zim:// citation chip opens the article in the window: its text shown, its script not run, nothing loaded, its links kept inside', { timeout: 300000 }, async () => {
  const lim = await srv.call('RunLimits');
  await srv.call('SetRunLimits', { ...lim, timeout_ns: 120e9 });
  const as = await srv.call('CreateAssistant', { name: 'Python helper', instructions: 'Answer from the Python docs.', capabilities: ['web_browsing'] });
  const page = await openApp(browser, srv.url, { hash: '#/ask' });
  const origin = new URL(srv.base).origin;
  const elsewhere = [];
  page.on('request', (r) => {
    if (new URL(r.url()).origin !== origin) elsewhere.push(r.url());
  });
  const popups = [];
  page.context().on('page', (p) => popups.push(p.url()));

  const url = `http://127.0.0.1:${model.address().port}/v1`;
  await page.getByTestId('ask-server-url').fill(url);
  await page.getByTestId('ask-server-url').press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=ask-model]')?.textContent?.includes('qwen2.5:7b'));
  await page.getByTestId('ask-assistant').selectOption(as.id);
  assert.equal(await chosenModel(page, `${url}|qwen2.5:7b`), `${url}|qwen2.5:7b`);
  await page.getByTestId('ask-input').fill('How do I decode JSON in Python?');
  await page.getByTestId('ask-send').click();
  const answer = page.getByTestId('ask-answer');
  await answer.locator('button.cite[data-cite="1"]').waitFor({ timeout: 240000 });
  assert.match(await answer.innerText(), /json\.loads decodes JSON text/);

  // The chip [1]: its source, a zim:// address, opens in the reader.
  await answer.locator('button.cite[data-cite="1"]').click();
  const source = page.getByTestId('cite-source');
  await source.waitFor();
  assert.equal(await source.getByTestId('cite-url').innerText(), 'zim://py/library/json.html');
  await source.getByTestId('cite-open-zim').click();
  const reader = page.getByTestId('zim-reader');
  const body = reader.getByTestId('zim-reader-body');
  await body.locator('text=JSONDecoder').first().waitFor({ timeout: 60000 });
  assert.match(await reader.getByTestId('zim-reader-title').innerText(), /json — JSON encoder and decoder/);
  assert.match(await reader.getByTestId('zim-reader-address').innerText(), /^zim:\/\/py\/library\/json\.html — Python docs \(e2e\), carried on this machine/);
  const text = await body.innerText();
  assert.match(text, /json\.loads\(/);
  assert.match(text, /See the csv module and a page on the web\./);
  assert.match(text, /\[image: a tracking pixel\]/);
  // Nothing of the page ran or loaded.
  await body.hover();
  await page.waitForTimeout(500);
  assert.equal(await page.evaluate(() => window.__zimScriptRan), undefined, "the article's script did not run");
  assert.notEqual(await page.title(), 'ran');
  assert.equal(await body.locator('script, img, iframe, link, style, [style], [onerror], [onmouseover], .overlay').count(), 0);
  assert.deepEqual(tracker.reached, [], 'nothing reached the loopback server the article points at');
  await page.screenshot({ path: join(artifacts, 'browser-zim-reader.png') });

  // A link to another page of the library opens in the reader; Back returns.
  await body.getByText('the csv module').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=zim-reader-address]')?.textContent?.startsWith('zim://py/library/csv.html'));
  await body.locator('text=csv.reader').first().waitFor();
  await reader.getByTestId('zim-reader-back').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=zim-reader-address]')?.textContent?.startsWith('zim://py/library/json.html'));
  await body.getByText('the csv module').waitFor();

  // A web link is not followed: the reader says where it leads and waits.
  await body.getByText('a page on the web').click();
  const leave = reader.getByTestId('zim-reader-leave');
  await leave.waitFor();
  assert.match(await leave.innerText(), /leaves the library for the web: https:\/\/example\.org\/e2e/);
  await page.screenshot({ path: join(artifacts, 'browser-zim-reader-leave.png') });
  await leave.getByTestId('zim-reader-leave-stay').click();
  assert.equal(await leave.count(), 0);
  assert.deepEqual(popups, [], 'no window was opened');
  assert.match(await reader.getByTestId('zim-reader-address').innerText(), /^zim:\/\/py\/library\/json\.html/);

  await page.keyboard.press('Escape');
  assert.equal(await reader.count(), 0);
  assert.deepEqual(elsewhere, [], 'the page asked nothing of any other origin');
  assert.deepEqual(tracker.reached, []);
  assert.deepEqual(page.jsErrors, []);
});
