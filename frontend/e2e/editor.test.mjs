// The assistant editor as full as ChatGPT's GPT editor, driven in a browser
// as a person would: knowledge and an action added before the first Save (a
// draft is saved), a welcome message and starters, a picture (a WebP file,
// and a hostile PNG refused in words), the default model from the served
// models, an action's schema imported from a file and from a URL (a local
// HTTP server; a 404 said in words), and the live preview answering through
// the tiny model on the real llama-server with the unsaved instructions,
// keeping no conversation. Then Ask opens a new chat with the welcome
// message, the picture, the starters and the default model.
//
// Screenshots: $ARTIFACTS/editor-1280.png, editor-knowledge-actions-1280.png (whole page),
// editor-ask-1280.png, editor-900.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, launchBrowser, artifacts, startLlama, chosenModel, serverField, root } from './harness.mjs';
import { pngBomb } from './pngs.mjs';

let srv, browser, llama, why, api, apiURL;
const shop = readFileSync(join(root, 'backend/actions/testdata/shop.yaml'), 'utf8');
const served = () => shop.replace('title: Shop', 'title: Shop from the URL').replace('SERVER', apiURL);

before(async () => {
  llama = await startLlama();
  if (llama.skip) {
    why = llama.skip;
    return;
  }
  srv = await startServe();
  browser = await launchBrowser();
  mkdirSync(artifacts, { recursive: true });
  api = createServer((req, res) => {
    if (req.url === '/openapi.yaml') {
      res.writeHead(200, { 'Content-Type': 'application/yaml' });
      res.end(served());
    } else {
      res.writeHead(404);
      res.end('no such page');
    }
  });
  await new Promise((r) => api.listen(0, '127.0.0.1', r));
  apiURL = `http://127.0.0.1:${api.address().port}`;
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  llama?.stop?.();
  api?.close();
});

test('the editor: knowledge before the first Save, welcome, starters, picture, default model, schema import, live preview', async (t) => {
  if (why) return t.skip(why);
  const dir = mkdtempSync(join(tmpdir(), 'rehome-editor-'));
  const notes = join(dir, 'shop notes.md');
  writeFileSync(notes, '# Shop notes\n\nOrders ship within two days. Returns are free for 30 days.\n');
  const schemaFile = join(dir, 'shop.yaml');
  writeFileSync(schemaFile, shop);
  const bomb = join(dir, 'bomb.png');
  writeFileSync(bomb, pngBomb(30000, 8));
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // On a machine still being set up, the first-run list opens: a person closes it.
  await page.addLocatorHandler(page.getByTestId('firstrun-dialog'), () => page.getByTestId('firstrun-close').click());
  await page.goto(srv.url);

  // The llama-server is named once in Ask, which keeps it in Settings.
  await page.evaluate(() => (location.hash = '#/ask'));
  await (await serverField(page)).fill(llama.url);
  await page.getByTestId('ask-server-url').press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=ask-model]')?.textContent?.includes('rehome-tiny'));

  await page.evaluate(() => (location.hash = '#/assistants'));
  await page.getByTestId('new-assistant').click();
  // Before any Save: Knowledge and Actions are there; a file added saves a draft.
  await page.getByTestId('knowledge-panel').waitFor();
  await page.getByTestId('actions-panel').waitFor();
  await page.getByTestId('knowledge-file-input').setInputFiles([notes]);
  await page.locator('[data-testid=knowledge-file][data-state=indexed]').waitFor({ timeout: 60000 });
  assert.match(await page.getByTestId('assistant-notice').innerText(), /Saved “Untitled assistant” as a draft/);
  assert.equal(await page.getByTestId('assistant-row').count(), 1);

  await page.getByTestId('field-name').fill('Shop helper');
  await page.getByTestId('field-instructions').fill('You help the shop’s customers. Be brief.');
  await page.getByTestId('field-starters').fill('What does order o-42 total?\nWhat is the returns policy?');
  await page.getByTestId('field-welcome').fill('Hello! I know the **shop notes**. Ask me about an order.');

  // The picture: a hostile PNG is refused in words; a WebP is kept, re-encoded.
  await page.getByTestId('picture-input').setInputFiles([bomb]);
  await page.getByTestId('picture-error').waitFor();
  assert.match(await page.getByTestId('picture-error').innerText(), /bomb\.png: .*30000 × 8 pixels, at most 12000 on a side/);
  await page.getByTestId('picture-input').setInputFiles([join(root, 'backend/vision/testdata/blue-purple-pink.lossy.webp')]);
  await page.waitForFunction(() => document.querySelector('img[data-testid=picture-shown]')?.getAttribute('src')?.startsWith('data:image/jpeg;base64,'));
  const shown = await page.getByTestId('picture-shown').evaluate((img) => [img.naturalWidth, img.naturalHeight]);
  assert.ok(Math.max(...shown) <= 256 && shown[0] > 0, `kept at 256 px at most (${shown})`);

  // The default model, from the served ones.
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=field-model] option')].some((o) => o.value === 'rehome-tiny'));
  await page.getByTestId('field-model').selectOption('rehome-tiny');

  // The action's schema: wide, from a file, from a URL (and a 404 in words).
  await page.getByTestId('action-add').locator('summary').click();
  const box = page.getByTestId('action-schema');
  const [boxWidth, formWidth, font, resize] = await box.evaluate((el) => [el.getBoundingClientRect().width, el.closest('[data-testid=actions-panel]').getBoundingClientRect().width, getComputedStyle(el).fontFamily, getComputedStyle(el).resize]);
  assert.ok(boxWidth > formWidth - 60, `the schema box spans the section (${boxWidth} of ${formWidth} px)`);
  assert.match(font, /mono/i);
  assert.equal(resize, 'vertical');
  await page.getByTestId('schema-file-input').setInputFiles([schemaFile]);
  await page.waitForFunction(() => document.querySelector('[data-testid=action-schema]')?.value.includes('title: Shop\n'));
  await page.getByTestId('schema-url').fill(`${apiURL}/missing.yaml`);
  await page.getByTestId('schema-fetch').click();
  await page.getByTestId('schema-import-error').waitFor();
  assert.match(await page.getByTestId('schema-import-error').innerText(), /answered HTTP 404 for the schema/);
  await page.getByTestId('schema-url').fill(`${apiURL}/openapi.yaml`);
  await page.getByTestId('schema-fetch').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=action-schema]')?.value.includes('title: Shop from the URL'));
  await page.getByTestId('knowledge-panel').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, 'editor-knowledge-actions-1280.png'), fullPage: true });
  await page.getByTestId('action-add-allow-local').check();
  await page.getByTestId('action-add-button').click();
  await page.locator('[data-testid=action]').first().waitFor().catch(async (e) => {
    throw new Error(`${e.message}: ${await page.getByTestId('actions-error').innerText().catch(() => 'no error shown')}`);
  });
  assert.equal(await page.getByTestId('action').first().locator('b').first().innerText(), 'Shop from the URL');

  // The live preview: the welcome message, the starters, an answer from the
  // real llama-server with the instructions as typed; nothing is kept.
  await page.getByTestId('preview-toggle').click();
  const preview = page.getByTestId('assistant-preview');
  assert.match(await preview.getByTestId('preview-welcome').innerText(), /Hello! I know the shop notes\./);
  assert.deepEqual(await preview.getByTestId('preview-starter').allInnerTexts(), ['What does order o-42 total?', 'What is the returns policy?']);
  await preview.getByTestId('preview-input').fill('Which region had the most revenue?');
  await page.evaluate(() => {
    window.sawLive = '';
    new MutationObserver(() => {
      const el = document.querySelector('[data-testid=preview-live]');
      if (el) window.sawLive = el.textContent;
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await preview.getByTestId('preview-send').click();
  await preview.getByTestId('preview-answer').waitFor({ timeout: 240000 });
  assert.match(await preview.getByTestId('preview-answer').innerText(), /The summary of sales\.csv is above/);
  assert.match(await preview.getByTestId('preview-note').innerText(), /does not run in the preview/);
  assert.ok(await page.evaluate(() => window.sawLive), 'the answer streamed into the preview as it came');
  assert.deepEqual(await srv.call('ListConversations', 10), []);
  await page.screenshot({ path: join(artifacts, 'editor-1280.png') });

  await page.getByTestId('save-assistant').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=assistant-notice]')?.textContent?.includes('Saved “Shop helper”'));
  const [stored] = await srv.call('ListAssistants');
  assert.equal(stored.name, 'Shop helper');
  assert.equal(stored.welcome_message, 'Hello! I know the **shop notes**. Ask me about an order.');
  assert.equal(stored.model, 'rehome-tiny');
  assert.match(stored.picture, /^data:image\/jpeg;base64,/);
  assert.equal(stored.knowledge.length, 1);
  assert.equal(stored.actions.length, 1);
  assert.equal(await page.getByTestId('assistant-row-avatar').getAttribute('src'), stored.picture);

  // Ask: a new chat with it opens with the welcome, the picture, the starters and the default model.
  await page.evaluate(() => (location.hash = '#/ask'));
  await page.getByTestId('ask-assistant').selectOption({ label: 'Shop helper' });
  await page.getByTestId('ask-welcome').waitFor();
  assert.match(await page.getByTestId('ask-welcome').innerText(), /Shop helper\s+Hello! I know the shop notes\./);
  assert.equal(await page.getByTestId('ask-avatar').getAttribute('src'), stored.picture);
  assert.deepEqual(await page.getByTestId('ask-starters').locator('button').allInnerTexts(), ['What does order o-42 total?', 'What is the returns policy?']);
  assert.equal(await chosenModel(page, `${llama.url}|rehome-tiny`), `${llama.url}|rehome-tiny`);
  await page.screenshot({ path: join(artifacts, 'editor-ask-1280.png') });

  // The small window: the editor with its preview still reads.
  await page.setViewportSize({ width: 900, height: 620 });
  await page.evaluate(() => (location.hash = '#/assistants'));
  await page.getByTestId('assistant-row').first().click();
  await page.getByTestId('preview-toggle').click();
  await page.getByTestId('assistant-preview').waitFor();
  await page.waitForTimeout(300); // the scroll into view
  const top = await page.getByTestId('assistant-preview').evaluate((el) => el.getBoundingClientRect().top);
  assert.ok(top >= 0 && top < 620 - 100, `the preview opened in view (top at ${top} px)`);
  await page.screenshot({ path: join(artifacts, 'editor-900.png') });
  const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(over <= 0, `no sideways scroll at 900 px (${over} px over)`);
  assert.deepEqual(errors, []);
});
