// The assistant editor's Knowledge section in a real browser against
// `rehome serve`: a real PDF (a Debian manual) and a bad file dropped on
// it are read in the real sandbox; each gets its result, the files are
// searched and one is removed. No second copy stays behind in uploads/.
// An answer from the files (a recorded Ollama wire calling file_search)
// shows its search step and the Sources under it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, launchBrowser, openApp, artifacts, recordedOllama, serverField } from './harness.mjs';

// A real PDF from a Debian package (shared-mime-info, which GTK needs).
const manual = '/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf';

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

/** Drops files (name and bytes) on the element as a user's drag would. */
async function dropFiles(page, selector, files) {
  const payload = files.map((f) => ({ name: f.name, type: f.type, data: [...f.bytes] }));
  const transfer = await page.evaluateHandle((fs) => {
    const dt = new DataTransfer();
    for (const f of fs) dt.items.add(new File([new Uint8Array(f.data)], f.name, { type: f.type }));
    return dt;
  }, payload);
  await page.dispatchEvent(selector, 'dragover', { dataTransfer: transfer });
  await page.dispatchEvent(selector, 'drop', { dataTransfer: transfer });
}

test('drop a real PDF and a bad file into the Knowledge section, search, remove one', { timeout: 240000 }, async () => {
  assert.ok(existsSync(manual), `${manual} is missing: sudo apt-get install shared-mime-info`);
  const a = await srv.call('CreateAssistant', { name: 'MIME Helper', instructions: 'Answer from the spec.' });
  const page = await openApp(browser, srv.url, { hash: '#/assistants' });
  await page.getByTestId('assistant-row').filter({ hasText: 'MIME Helper' }).click();
  await page.getByTestId('knowledge-panel').waitFor();
  assert.match(await page.getByTestId('knowledge-ranking').innerText(), /No files yet/);

  await dropFiles(page, '[data-testid=knowledge-drop]', [
    { name: 'shared-mime-info-spec.pdf', type: 'application/pdf', bytes: readFileSync(manual) },
    { name: 'report.pdf', type: 'application/pdf', bytes: Buffer.from('<html><body>a web page saved as .pdf</body></html>') },
  ]);
  // Long work shows its step while it runs.
  await page.getByTestId('knowledge-step').waitFor({ timeout: 20000 });
  const rows = page.getByTestId('knowledge-file');
  await rows.nth(1).waitFor({ timeout: 200000 });
  await page.getByTestId('knowledge-step').waitFor({ state: 'detached', timeout: 200000 });

  const good = page.locator('[data-testid=knowledge-file][data-name="shared-mime-info-spec.pdf"]');
  const bad = page.locator('[data-testid=knowledge-file][data-name="report.pdf"]');
  assert.match(await good.getByTestId('knowledge-file-state').innerText(), /^indexed: \d+ pages, \d+ chunks$/);
  assert.equal(await bad.getByTestId('knowledge-file-state').innerText(), 'not indexed: not a PDF although named .pdf');
  const results = await page.getByTestId('knowledge-result').allInnerTexts();
  assert.equal(results.length, 2, results.join('\n'));
  assert.ok(results.some((r) => /shared-mime-info-spec\.pdf: indexed, \d+ pages/.test(r)), results.join('\n'));
  assert.ok(results.some((r) => r.startsWith('report.pdf: not indexed: not a PDF although named .pdf')), results.join('\n'));
  assert.match(await page.getByTestId('knowledge-ranking').innerText(), /keywords alone \(BM25\)/);

  // Search as the assistant's file_search does: the passage and its page.
  const q = 'default priority of magic rules';
  await page.getByTestId('knowledge-query').fill(q);
  await page.getByTestId('knowledge-search').click();
  const hit = page.getByTestId('knowledge-hit').first();
  await hit.waitFor();
  const [top] = await srv.call('KnowledgeSearch', a.id, q, 5);
  assert.ok(top.text.includes('default priority value is 50'), top.text);
  assert.ok((await hit.innerText()).startsWith(`shared-mime-info-spec.pdf, page ${top.page}\n`), await hit.innerText());
  await page.getByTestId('knowledge-hits').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, 'browser-knowledge.png') });

  // The uploads went once the library had its copies: one copy per file.
  const uploads = join(srv.home, 'uploads');
  assert.deepEqual(existsSync(uploads) ? readdirSync(uploads) : [], []);

  // Remove the bad one, with a confirmation; the good one stays.
  await bad.getByTestId('knowledge-remove').click();
  await bad.getByTestId('knowledge-confirm-remove').click();
  await bad.waitFor({ state: 'detached' });
  assert.equal(await rows.count(), 1);
  const listed = await srv.call('KnowledgeList', a.id);
  assert.deepEqual(listed.map((f) => f.name), ['shared-mime-info-spec.pdf']);
  const rec = await srv.call('GetAssistant', a.id);
  assert.deepEqual(rec.knowledge.map((k) => k.name), ['shared-mime-info-spec.pdf']);
  assert.deepEqual(page.jsErrors, []);
});

// Stop, from the editor, during a long index: the file being read says
// stopped, nothing of it is kept (no listed file, no entry in the
// assistant's record, no library copy, no upload), and adding it again
// indexes it.
test('Stop in the Knowledge section: the file says stopped, nothing half-kept, a second add works', { timeout: 240000 }, async () => {
  const a = await srv.call('CreateAssistant', { name: 'Stop Helper', instructions: 'Answer from the files.' });
  // A long text file (about 7 MB: under the 16 MB a text file may be,
  // issue 29), thousands of chunks to index.
  const dir = mkdtempSync(join(tmpdir(), 'rehome-e2e-stop-'));
  const big = join(dir, 'big-notes.txt');
  const line = (i) => `Note ${i}: the pump ${i % 97} in hall ${i % 13} was checked on day ${i % 365} and its seal ${i % 7} replaced.\n`;
  writeFileSync(big, Array.from({ length: 80000 }, (_, i) => line(i)).join(''));
  const small = join(dir, 'small.txt');
  writeFileSync(small, 'The spare seals are in the blue cabinet.\n');
  try {
    const page = await openApp(browser, srv.url, { hash: '#/assistants' });
    await page.getByTestId('assistant-row').filter({ hasText: 'Stop Helper' }).click();
    await page.getByTestId('knowledge-panel').waitFor();

    await page.getByTestId('knowledge-file-input').setInputFiles([big]);
    const step = page.getByTestId('knowledge-step');
    // Past the upload: rehome is reading or indexing it.
    await page.waitForFunction(() => /: (copying|reading|indexing) big-notes\.txt/.test(document.querySelector('[data-testid=knowledge-step]')?.textContent ?? ''), null, { timeout: 120000 });
    await page.getByTestId('knowledge-stop').click();
    await step.waitFor({ state: 'detached', timeout: 60000 });

    const results = page.getByTestId('knowledge-result');
    await results.first().waitFor();
    assert.deepEqual(await results.allInnerTexts(), ['big-notes.txt: stopped before it was indexed; nothing of it is kept (add it again to index it)']);
    assert.equal(await results.first().getAttribute('data-state'), 'stopped');
    assert.equal(await page.getByTestId('knowledge-file').count(), 0, 'a stopped file is listed');
    assert.deepEqual(await srv.call('KnowledgeList', a.id), []);
    assert.deepEqual((await srv.call('GetAssistant', a.id)).knowledge ?? [], []);
    const lib = join(srv.home, 'knowledge');
    const copies = existsSync(lib) ? readdirSync(lib).filter((n) => /^[0-9a-f]{64}$/.test(n)) : [];
    for (const sum of copies) assert.ok(!readdirSync(join(lib, sum)).includes('big-notes.txt'), `a library copy of the stopped file stayed: ${sum}`);
    const uploads = join(srv.home, 'uploads');
    assert.deepEqual(existsSync(uploads) ? readdirSync(uploads) : [], []);
    await page.screenshot({ path: join(artifacts, 'browser-knowledge-stopped.png') });

    // A second add works.
    await page.getByTestId('knowledge-file-input').setInputFiles([small]);
    await page.locator('[data-testid=knowledge-file][data-name="small.txt"]').waitFor({ timeout: 120000 });
    assert.match(await page.getByTestId('knowledge-file-state').first().innerText(), /^indexed: 1 chunks?$/);
    assert.deepEqual((await srv.call('KnowledgeList', a.id)).map((f) => f.name), ['small.txt']);
    assert.deepEqual(page.jsErrors, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an answer from the knowledge files shows its search step and its Sources', { timeout: 240000 }, async () => {
  const a = await srv.call('CreateAssistant', { name: 'Kettle Helper', instructions: 'Answer from the guide.' });
  const dir = mkdtempSync(join(tmpdir(), 'rehome-e2e-cite-'));
  const guide = join(dir, 'guide.md');
  writeFileSync(guide, '# Kettle care\n\nKeep the kettle dry.\n\n## Descaling\n\nDescale the kettle every four weeks with citric acid.\n\n## Warranty\n\nThe warranty lasts two years from the date of purchase. Batteries are covered for six months.\n');
  const model = await recordedOllama('knowledge-tools');
  await srv.call('DismissFirstRun'); // no sandbox is needed here: a checklist dialog would only cover the screen
  try {
    const page = await openApp(browser, srv.url, { hash: '#/assistants' });
    await page.getByTestId('assistant-row').filter({ hasText: 'Kettle Helper' }).click();
    await page.getByTestId('knowledge-panel').waitFor();
    await page.getByTestId('knowledge-file-input').setInputFiles([guide]);
    await page.locator('[data-testid=knowledge-file][data-name="guide.md"]').waitFor({ timeout: 120000 });

    await page.evaluate(() => (location.hash = '#/ask'));
    const url = `http://127.0.0.1:${model.address().port}/v1`;
    await (await serverField(page)).fill(url);
    await page.getByTestId('ask-server-url').press('Enter');
    await page.waitForFunction((u) => [...document.querySelectorAll('[data-testid=ask-model] option')].some((o) => o.value === `${u}|qwen2.5:7b`), url);
    await page.getByTestId('ask-assistant').selectOption(a.id);
    await page.getByTestId('ask-model').selectOption(`${url}|qwen2.5:7b`);
    await page.getByTestId('ask-input').fill('How long is the warranty?');
    await page.getByTestId('ask-send').click();
    await page.getByTestId('ask-answer').waitFor({ timeout: 120000 });
    assert.match(await page.getByTestId('ask-answer').innerText(), /two years from the date of purchase/);
    // The search is a step of its own, in words, with its passages inside.
    const step = page.getByTestId('ask-search-step');
    assert.equal(await step.count(), 1);
    assert.match(await step.locator('summary').innerText(), /^Searched the knowledge files: \d+ passages? from 1 file$/);
    await step.locator('summary').click();
    assert.match(await step.innerText(), /guide\.md, Kettle care › Warranty/);
    // Under the answer: the Sources it cites, in order (its [2] named no passage).
    await page.getByTestId('ask-sources').waitFor();
    assert.deepEqual(await page.getByTestId('ask-source').allInnerTexts(), ['guide.md, Kettle care › Warranty']);
    await page.screenshot({ path: join(artifacts, 'browser-knowledge-answer.png') });
    assert.deepEqual(page.jsErrors, []);
  } finally {
    model.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
