// ChatGPT's conversations into the browser's conversation list (`rehome
// serve`, headless Chromium): a real export (backend/chatgptexport/testdata,
// cited in its README) chosen in the list's "Import chats from ChatGPT…" is
// uploaded, imported with a progress line, reported per GPT, and its
// conversations show in the list; a second import makes no copies; a file
// that is not an export is refused in words.
// Screenshots land in $ARTIFACTS as browser-conversations-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { startServe, launchBrowser, artifacts } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const realExport = join(here, '../../backend/chatgptexport/testdata/gpt-2025.json');

let srv, browser;
before(async () => {
  srv = await startServe();
  browser = await launchBrowser();
  mkdirSync(artifacts, { recursive: true });
});
after(async () => {
  await browser?.close();
  await srv?.stop();
});

test('a ChatGPT export chosen on the conversation list is imported, reported per GPT and listed, once', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(srv.url);
  await page.evaluate(() => (location.hash = '#/ask'));
  await page.getByTestId('conv-import-choose').waitFor();
  await page.setInputFiles('[data-testid=conv-import-input]', realExport);
  await page.getByTestId('conv-import-report').waitFor({ timeout: 30000 });
  const report = await page.getByTestId('conv-import-report').innerText();
  assert.match(report, /Imported 4 conversations \(4 new, 0 updated\)/);
  assert.match(report, /2 with the GPT g-67ee11f7587881919c3ba1c99a9d6b39: they join its assistant once you import it/);
  assert.match(report, /1 other branch \(edited questions, regenerated answers\) kept/);
  await page.waitForFunction(() => document.querySelector('[data-testid=ask-conversations]')?.textContent?.includes('정규분포 설명 예시'));
  await page.screenshot({ path: join(artifacts, 'browser-conversations-imported.png') });
  const listed = await srv.call('ListConversations', 0);
  assert.equal(listed.length, 4);

  // An imported conversation opens like one asked here: its answers and
  // the code ChatGPT ran.
  await page.getByTestId('ask-conversation').filter({ hasText: '정규분포 설명 예시' }).locator('button.link').click();
  await page.getByTestId('ask-answer').first().waitFor({ timeout: 15000 });
  assert.equal(await page.getByTestId('ask-question').count(), 12, 'the branch the user was on: 12 questions');
  assert.equal(await page.getByTestId('ask-cell').count(), 6, 'the code the GPT ran, as cells');
  assert.match(await page.getByTestId('ask-cell').first().innerText(), /Python/);
  await page.screenshot({ path: join(artifacts, 'browser-conversations-open.png'), fullPage: false });

  await page.getByRole('button', { name: 'Close the import report' }).click();
  await page.setInputFiles('[data-testid=conv-import-input]', realExport);
  await page.getByTestId('conv-import-report').waitFor({ timeout: 30000 });
  assert.match(await page.getByTestId('conv-import-report').innerText(), /4 unchanged since an earlier import/);
  assert.equal((await srv.call('ListConversations', 0)).length, 4, 'a second import makes no copies');

  const notExport = join(tmpdir(), `conversations-${process.pid}.json`);
  writeFileSync(notExport, 'name,value\n1,2\n');
  await page.setInputFiles('[data-testid=conv-import-input]', notExport);
  await page.getByTestId('conv-import-error').waitFor({ timeout: 30000 });
  assert.match(await page.getByTestId('conv-import-error').innerText(), /not ChatGPT's data export/);
  await page.screenshot({ path: join(artifacts, 'browser-conversations-refused.png') });
  assert.deepEqual(errors, []);
});
