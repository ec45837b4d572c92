import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServe, launchBrowser, openApp, artifacts } from './harness.mjs';

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

test('requests without the token are refused', async () => {
  const res = await fetch(`${srv.base}/api/call/ListAssistants`, { method: 'POST', body: '[]' });
  assert.equal(res.status, 401);
  const page = await fetch(`${srv.base}/`);
  assert.equal(page.status, 401);
  const wrong = await fetch(`${srv.base}/?token=nottheone`, { redirect: 'manual' });
  assert.equal(wrong.status, 401);
  const ok = await fetch(`${srv.base}/api/call/ListAssistants`, {
    method: 'POST',
    body: '[]',
    headers: { 'X-Rehome-Token': srv.token },
  });
  assert.equal(ok.status, 200);
});

test('create, edit and delete an assistant through the UI', async () => {
  const page = await openApp(browser, srv.url, { hash: '#/assistants' });
  // The token moved from the address bar into a cookie.
  assert.ok(!page.url().includes('token='), `token left in the URL: ${page.url()}`);
  await page.getByTestId('assistants-empty').waitFor();

  // Create
  await page.getByTestId('new-assistant').click();
  await page.getByTestId('field-name').fill('Sales analyst');
  await page.getByTestId('field-description').fill('Charts monthly sales');
  await page.getByTestId('field-instructions').fill('You analyse CSV files and always plot.');
  await page.getByTestId('field-starters').fill('Plot revenue by month\nWho are the top customers?');
  await page.getByTestId('cap-code_interpreter').check();
  await page.getByTestId('cap-vision').check();
  await page.getByTestId('save-assistant').click();
  await page.getByTestId('assistant-notice').filter({ hasText: 'Saved' }).waitFor();
  await page.getByTestId('assistant-row').filter({ hasText: 'Sales analyst' }).waitFor();
  await page.screenshot({ path: join(artifacts, 'browser-assistants.png') });

  // It is in the store, as the CLI's bridge sees it.
  const stored = await srv.call('ListAssistants');
  assert.equal(stored.length, 1);
  assert.equal(stored[0].name, 'Sales analyst');
  assert.deepEqual(stored[0].capabilities, ['code_interpreter', 'vision']);
  assert.deepEqual(stored[0].starters, ['Plot revenue by month', 'Who are the top customers?']);

  // Edit: reload the page first, so the edit works on what was stored.
  await page.reload();
  await page.getByTestId('assistant-row').filter({ hasText: 'Sales analyst' }).click();
  assert.equal(await page.getByTestId('field-instructions').inputValue(), 'You analyse CSV files and always plot.');
  await page.getByTestId('field-name').fill('Sales analyst v2');
  await page.getByTestId('cap-vision').uncheck();
  await page.getByTestId('save-assistant').click();
  await page.getByTestId('assistant-row').filter({ hasText: 'Sales analyst v2' }).waitFor();
  const edited = await srv.call('GetAssistant', stored[0].id);
  assert.equal(edited.name, 'Sales analyst v2');
  assert.deepEqual(edited.capabilities, ['code_interpreter']);
  assert.equal(edited.created, stored[0].created);

  // A blank name is refused in words, and nothing is lost.
  await page.getByTestId('field-name').fill('   ');
  await page.getByTestId('save-assistant').click();
  await page.getByTestId('assistant-error').filter({ hasText: 'name' }).waitFor();
  assert.equal((await srv.call('GetAssistant', stored[0].id)).name, 'Sales analyst v2');
  await page.getByTestId('field-name').fill('Sales analyst v2');

  // Delete, with a confirmation.
  await page.getByTestId('delete-assistant').click();
  await page.getByTestId('confirm-delete').click();
  await page.getByTestId('assistants-empty').waitFor();
  assert.deepEqual(await srv.call('ListAssistants'), []);
  assert.deepEqual(page.jsErrors, []);
  await page.close();
});


test('import a GPT from the Assistants screen', async () => {
  const page = await openApp(browser, srv.url, { hash: '#/assistants' });
  await page.getByTestId('import-toggle').click();
  await page.getByTestId('import-json').fill(JSON.stringify({
    object: 'assistant',
    name: 'Imported analyst',
    instructions: 'Answer from the data.',
    tools: [{ type: 'code_interpreter' }],
  }));
  await page.getByTestId('import-button').click();
  await page.getByTestId('import-notice').filter({ hasText: 'Imported' }).waitFor();
  await page.getByTestId('assistant-row').filter({ hasText: 'Imported analyst' }).waitFor();
  // The imported assistant opens in the editor, as stored.
  assert.equal(await page.getByTestId('field-name').inputValue(), 'Imported analyst');
  assert.ok(await page.getByTestId('cap-code_interpreter').isChecked());
  const list = await srv.call('ListAssistants');
  assert.equal(list.length, 1);
  // Broken JSON is refused in words and stores nothing.
  await page.getByTestId('import-json').fill('{"name": "x", "instructions": 42}');
  await page.getByTestId('import-button').click();
  await page.getByTestId('import-error').filter({ hasText: 'instructions' }).waitFor();
  assert.equal((await srv.call('ListAssistants')).length, 1);
  assert.deepEqual(page.jsErrors, []);
  await page.close();
});

test('import the Assistants API list: every assistant, reported one by one', async () => {
  const page = await openApp(browser, srv.url, { hash: '#/assistants' });
  const before = (await srv.call('ListAssistants')).length;
  await page.getByTestId('import-toggle').click();
  const list = readFileSync(new URL('../../backend/assistant/testdata/openai_assistants_list.json', import.meta.url), 'utf8');
  await page.getByTestId('import-json').fill(list);
  await page.getByTestId('import-button').click();
  await page.getByTestId('import-notice').filter({ hasText: 'Imported 3 of the 4 assistants in the list' }).waitFor();
  const items = page.getByTestId('import-item');
  assert.equal(await items.count(), 4);
  const texts = await items.allInnerTexts();
  assert.ok(texts.some((t) => /Imported “My Assistant” \(asst_abc456\).*2 files still on OpenAI/s.test(t) && /vs_abc123/.test(t)), texts.join(' | '));
  assert.ok(texts.some((t) => /Imported “Untitled assistant \(asst_abc789\)”/.test(t) && /name: null/.test(t)), texts.join(' | '));
  assert.ok(texts.some((t) => /Not imported: “Broken Export” \(asst_abc000\): instructions: expected a string, got number/.test(t)), texts.join(' | '));
  assert.equal(await page.locator('[data-testid="import-item"][data-imported="false"]').count(), 1);
  const stored = await srv.call('ListAssistants');
  assert.equal(stored.length, before + 3);
  const mine = stored.find((a) => a.name === 'My Assistant');
  assert.deepEqual(mine.capabilities, ['code_interpreter', 'knowledge']);
  assert.deepEqual(mine.remote_files.map((f) => f.id), ['file-abc123', 'vs_abc123']);
  await page.getByTestId('assistant-row').filter({ hasText: 'Coding Tutor' }).waitFor();
  assert.deepEqual(page.jsErrors, []);
  await page.close();
});

test('Settings backs the database up while rehome runs', async () => {
  const page = await openApp(browser, srv.url, { hash: '#/settings' });
  await page.getByTestId('backup-now').click();
  const notice = page.getByTestId('backup-notice');
  await notice.waitFor();
  const text = await notice.textContent();
  assert.match(text, /backups\/rehome-.*\.db/);
  // The browser can download the copy, and it is a bbolt file.
  const href = await notice.locator('a').getAttribute('href');
  const res = await page.request.get(new URL(href, srv.base).toString());
  assert.equal(res.status(), 200);
  const body = await res.body();
  assert.ok(body.length >= 16384, `backup is ${body.length} bytes`);
  assert.equal(body.readUInt32LE(16), 0xed0cdaed, 'not a bbolt file (magic)');
  assert.deepEqual(page.jsErrors, []);
  await page.close();
});
