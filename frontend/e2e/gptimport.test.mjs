import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServe, launchBrowser, openApp, artifacts } from './harness.mjs';

// Import a GPT from ChatGPT in the browser: the panel says where each
// input comes from, shows the export snippet with a copy button, previews
// a real store list GPT by GPT before anything is stored, then imports it
// and reports per GPT.
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

const fixture = (name) => readFileSync(new URL(`../../backend/assistant/testdata/gpts/${name}`, import.meta.url), 'utf8');

test('preview then import ChatGPT GPT records, per GPT', async () => {
  const page = await openApp(browser, srv.url, { hash: '#/assistants' });
  await page.getByTestId('import-toggle').click();
  await page.getByTestId('gpt-import-where').filter({ hasText: 'export snippet' }).waitFor();
  await page.getByTestId('gpt-snippet-toggle').click();
  await page.getByTestId('gpt-snippet').filter({ hasText: '/backend-api/gizmos/discovery/mine' }).waitFor();
  assert.ok(await page.getByTestId('gpt-snippet-copy').isEnabled());

  await page.getByTestId('import-json').fill(fixture('store_list_writing.json'));
  await page.getByTestId('gpt-preview-button').click();
  const items = page.getByTestId('gpt-preview-item');
  await items.first().waitFor();
  assert.equal(await items.count(), 3);
  const texts = await items.allInnerTexts();
  assert.ok(texts.some((t) => /Adds “Writing Assistant” \(g-Z7GlWKlJx\)/.test(t) && /Had: canvas, code interpreter, image generation/.test(t)), texts.join(' | '));
  // Counts in words: "1 note", never "note(s)" (issue 31's broken details).
  assert.ok(texts.some((t) => /\b\d+ notes?\b/.test(t)) && texts.every((t) => !/\w\(s\)/.test(t)), texts.join(' | '));
  assert.equal((await srv.call('ListAssistants')).length, 0, 'the preview stored something');
  await page.screenshot({ path: join(artifacts, 'browser-gpt-preview.png'), fullPage: true });

  await page.getByTestId('import-button').click();
  await page.getByTestId('import-notice').filter({ hasText: 'Imported 3 of the 3 assistants in the list' }).waitFor();
  const report = await page.getByTestId('import-item').allInnerTexts();
  assert.ok(report.some((t) => /Imported “Translate GPT” \(g-5bNPpaVZy\)/.test(t) && /Note: gizmo.instructions: not in this record/.test(t)), report.join(' | '));

  // One GPT with an OAuth action: the preview says what it waits for;
  // imported again, it updates rather than copies.
  await page.getByTestId('import-json').fill(fixture('humanizer_oauth.json'));
  await page.getByTestId('gpt-preview-button').click();
  await page.getByTestId('gpt-preview-item').filter({ hasText: 'waits for its OAuth client' }).waitFor();
  await page.getByTestId('import-button').click();
  await page.getByTestId('import-item').filter({ hasText: 'Imported “AI Humanizer”' }).waitFor();
  await page.getByTestId('import-json').fill(fixture('humanizer_oauth.json'));
  await page.getByTestId('gpt-preview-button').click();
  await page.getByTestId('gpt-preview-item').filter({ hasText: 'Updates “AI Humanizer”' }).waitFor();
  await page.getByTestId('import-button').click();
  await page.getByTestId('import-notice').filter({ hasText: 'Updated “AI Humanizer”' }).waitFor();
  const stored = await srv.call('ListAssistants');
  assert.equal(stored.length, 4);
  assert.equal(stored.filter((a) => a.gizmo_id === 'g-2azCVmXdy').length, 1);
  await page.screenshot({ path: join(artifacts, 'browser-gpt-import.png'), fullPage: true });

  // Its OAuth action waits for its client in the editor's Actions panel;
  // given the client id, it waits only for a sign-in.
  await page.getByTestId('assistant-row').filter({ hasText: 'AI Humanizer' }).click();
  await page.getByTestId('assistant-gizmo').filter({ hasText: 'g-2azCVmXdy' }).waitFor();
  await page.getByTestId('action-waiting').filter({ hasText: 'Waiting for its OAuth client' }).waitFor();
  await page.getByTestId('action-client-id').fill('rehome-client');
  await page.getByTestId('action-key-keep').click();
  await page.getByTestId('action-waiting').waitFor({ state: 'detached' });
  const acts = await srv.call('ListActions', stored.find((a) => a.gizmo_id === 'g-2azCVmXdy').id);
  assert.equal(acts[0].waiting, 'a sign-in');
  assert.deepEqual(page.jsErrors, []);
  await page.close();
});
