// The assistant editor's Actions section and the window's confirmation
// dialog, in a real browser against `rehome serve`, calling a real API on
// 127.0.0.1: paste the schema, add it with a Bearer key, test a GET, and
// a consequential POST that the dialog denies, then allows. The key is
// never shown on the page or in a bridge answer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { startServe, launchBrowser, openApp, artifacts, root } from './harness.mjs';

const key = 'sk-e2e-canary-40d1a9';
let srv, browser, api, apiURL;
const hits = [];
before(async () => {
  api = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.headers.authorization !== `Bearer ${key}`) {
      res.writeHead(401).end('{"error":"no key"}');
      return;
    }
    res.setHeader('Content-Type', 'application/json');
    if (req.method === 'POST') {
      res.writeHead(201).end('{"id": "o-43", "total": 3}');
      return;
    }
    res.end(JSON.stringify({ id: req.url.split('/').pop(), total: 12.5 }));
  });
  await new Promise((ok) => api.listen(0, '127.0.0.1', ok));
  apiURL = `http://127.0.0.1:${api.address().port}`;
  srv = await startServe();
  browser = await launchBrowser();
  mkdirSync(artifacts, { recursive: true });
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  api?.close();
});

test('Actions: add with a key, Test, the confirmation dialog denies then allows', async () => {
  const as = await srv.call('CreateAssistant', { name: 'Shop' });
  const schema = readFileSync(join(root, 'backend/actions/testdata/shop.yaml'), 'utf8').replaceAll('SERVER', apiURL);
  const page = await openApp(browser, srv.url, { hash: '#/assistants' });
  await page.getByTestId('assistant-row').filter({ hasText: 'Shop' }).click();
  const panel = page.getByTestId('actions-panel');
  await panel.waitFor();
  await panel.locator('summary').click();
  await page.getByTestId('action-schema').fill(schema);
  await page.getByTestId('action-auth').selectOption('bearer');
  await page.getByTestId('action-key').fill(key);
  await page.getByTestId('action-add-button').click();
  const op = (id) => page.locator(`[data-testid="operation"][data-op="${id}"]`);
  await op('getOrder').waitFor();
  assert.match(await op('placeOrder').innerText(), /asks before every call/);
  assert.match(await op('getOrder').innerText(), /no confirmation/);

  // The API is on this machine: refused until the box is ticked, and
  // never reached before.
  await page.getByTestId('action-local-refused').waitFor();
  await op('getOrder').getByTestId('operation-args').fill('{"id": "o-42"}');
  await op('getOrder').getByTestId('operation-test').click();
  await op('getOrder').getByTestId('operation-result').filter({ hasText: 'not allowed to reach local addresses' }).waitFor();
  assert.equal(hits.length, 0, `the local API was called without the allowance: ${hits}`);
  await page.getByTestId('action-allow-local').locator('input').check();
  await page.getByTestId('action-local-refused').waitFor({ state: 'detached' });
  assert.equal((await srv.call('ListActions', as.id))[0].allow_local, true, 'the box did not store the allowance');
  await op('getOrder').getByTestId('operation-test').click();
  await op('getOrder').getByTestId('operation-result').filter({ hasText: 'HTTP 200' }).waitFor();
  assert.equal(await page.getByTestId('action-confirm').count(), 0, 'a GET asked for confirmation');

  // The consequential POST: the dialog names it, its host and arguments.
  await op('placeOrder').getByTestId('operation-args').fill('{"sku": "A1"}');
  await op('placeOrder').getByTestId('operation-test').click();
  const dialog = page.getByTestId('action-confirm');
  await dialog.waitFor();
  assert.equal(await page.getByTestId('action-confirm-op').innerText(), 'placeOrder');
  assert.equal(await page.getByTestId('action-confirm-host').innerText(), apiURL.replace('http://', ''));
  assert.match(await page.getByTestId('action-confirm-args').innerText(), /"sku": "A1"/);
  assert.equal(await page.getByTestId('action-always').count(), 0, 'Always allow offered for a consequential call');
  await page.screenshot({ path: join(artifacts, 'browser-action-confirm.png') });
  // Keyboard safety: the dialog has the focus (on Deny), Tab and
  // Shift+Tab stay inside it, and Esc answers Deny.
  const focused = () => page.evaluate(() => ({ id: document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName, inside: !!document.activeElement?.closest('[data-testid=action-confirm]') }));
  assert.deepEqual(await focused(), { id: 'action-deny', inside: true });
  for (const k of ['Tab', 'Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
    await page.keyboard.press(k);
    assert.ok((await focused()).inside, `${k} left the dialog for ${(await focused()).id}`);
  }
  await page.keyboard.press('Escape');
  await op('placeOrder').getByTestId('operation-result').filter({ hasText: 'declined' }).waitFor();
  assert.ok(!hits.some((h) => h.startsWith('POST')), `a denied POST was sent: ${hits}`);

  await op('placeOrder').getByTestId('operation-test').click();
  await dialog.waitFor();
  await page.getByTestId('action-allow').click();
  await op('placeOrder').getByTestId('operation-result').filter({ hasText: 'HTTP 201' }).waitFor();
  assert.equal(hits.filter((h) => h.startsWith('POST')).length, 1);

  // Save the form: the action stays (the form took the stored list back).
  await page.getByTestId('save-assistant').click();
  await page.getByTestId('assistant-notice').waitFor();
  const stored = await srv.call('ListActions', as.id);
  assert.equal(stored.length, 1);
  assert.ok(!(await page.content()).includes(key), 'the key is on the page');
  assert.ok(!JSON.stringify(stored).includes(key) && !JSON.stringify(await srv.call('GetAssistant', as.id)).includes(key), 'the key is in a bridge answer');
  assert.deepEqual(page.jsErrors, []);
});

test('Actions: an OAuth action signs in from its Sign in button (PKCE through the loopback redirect)', async () => {
  // A real OAuth provider and the API it guards, on 127.0.0.1: the
  // provider checks the PKCE verifier; the API answers its token only.
  let challenge = '';
  let access = '';
  const provider = createServer((req, res) => {
    const u = new URL(req.url, 'http://127.0.0.1');
    if (u.pathname === '/authorize') {
      if (u.searchParams.get('code_challenge_method') !== 'S256') return res.writeHead(400).end('PKCE S256 only');
      challenge = u.searchParams.get('code_challenge');
      const back = `${u.searchParams.get('redirect_uri')}?code=c0de&state=${encodeURIComponent(u.searchParams.get('state'))}`;
      return res.writeHead(302, { Location: back }).end();
    }
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const f = new URLSearchParams(body);
      const sum = createHash('sha256').update(f.get('code_verifier') ?? '').digest('base64url');
      if (f.get('code') !== 'c0de' || sum !== challenge) return res.writeHead(400).end('{"error":"invalid_grant"}');
      access = 'at-e2e-canary-7b20';
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ access_token: access, token_type: 'Bearer', refresh_token: 'rt-e2e-canary-19d4', expires_in: 3600 }));
    });
  });
  const guarded = createServer((req, res) => {
    if (!access || req.headers.authorization !== `Bearer ${access}`) return res.writeHead(401).end('{"error":"sign in"}');
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ id: req.url.split('/').pop(), total: 12.5 }));
  });
  await Promise.all([provider, guarded].map((s) => new Promise((ok) => s.listen(0, '127.0.0.1', ok))));
  const at = (s) => `http://127.0.0.1:${s.address().port}`;
  try {
    const as = await srv.call('CreateAssistant', { name: 'Signed shop' });
    const schema = readFileSync(join(root, 'backend/actions/testdata/shop.yaml'), 'utf8').replaceAll('SERVER', at(guarded));
    await srv.call('AddAction', as.id, { schema, auth: 'oauth', allow_local: true, oauth: { client_id: 'rehome-test', auth_url: `${at(provider)}/authorize`, token_url: `${at(provider)}/token` } });
    const page = await openApp(browser, srv.url, { hash: '#/assistants' });
    await page.getByTestId('assistant-row').filter({ hasText: 'Signed shop' }).click();
    const action = page.getByTestId('action').filter({ hasText: 'not signed in' });
    await action.waitFor();
    // The sign-in page opens in a new tab (the user's browser); where a
    // popup is not allowed, the link shown opens it.
    const opened = page.context().waitForEvent('page', { timeout: 5000 }).catch(() => null);
    await action.getByTestId('action-signin').click();
    if (!(await opened)) await page.getByTestId('action-signin-link').click();
    await page.getByTestId('action').filter({ hasText: 'signed in' }).filter({ hasNotText: 'not signed in' }).waitFor({ timeout: 20000 });
    const op = page.locator('[data-testid="operation"][data-op="getOrder"]');
    await op.getByTestId('operation-args').fill('{"id": "o-42"}');
    await op.getByTestId('operation-test').click();
    await op.getByTestId('operation-result').filter({ hasText: 'HTTP 200' }).waitFor();
    await page.screenshot({ path: join(artifacts, 'browser-action-signed-in.png') });
    const content = await page.content();
    assert.ok(!content.includes('at-e2e-canary') && !content.includes('rt-e2e-canary'), 'a token is on the page');
    assert.ok(!JSON.stringify(await srv.call('ListActions', as.id)).includes('canary'), 'a token is in a bridge answer');
    assert.deepEqual(page.jsErrors, []);
  } finally {
    provider.close();
    guarded.close();
  }
});
