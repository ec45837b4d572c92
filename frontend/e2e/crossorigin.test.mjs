// A hostile page on another port of this machine (any local dev server or
// notebook) tries to drive `rehome serve` with the requests a browser lets
// any page send: "simple" no-cors POSTs and a text/plain form, which carry
// the bridge's cookie (cookies are not bound to ports). The bridge must
// refuse every one, and the real page must show that nothing changed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, launchBrowser, openApp, artifacts } from './harness.mjs';

let srv, browser, hostile, hostileURL, scratch;

before(async () => {
  srv = await startServe();
  browser = await launchBrowser();
  scratch = mkdtempSync(join(tmpdir(), 'rehome-xorigin-'));
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  hostile?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function hostilePage(bridge, precious, fresh) {
  const limits = JSON.stringify([{ timeout_ns: 3600e9, pids: 4096 }]);
  return `<!doctype html><html><head><title>cat pictures</title></head><body>
<iframe name="sink" style="display:none"></iframe>
<form id="f" method="POST" enctype="text/plain" target="sink" action="${bridge}/api/call/SetRunLimits">
<input type="hidden" name='[{"timeout_ns":3600000000000,"pids":4096,"x":"' value='"}]'></form>
<script>
const bridge = ${JSON.stringify(bridge)};
const post = (path, body, headers = {}) => fetch(bridge + path, { method: 'POST', mode: 'no-cors', credentials: 'include', body, headers }).then(() => 'sent', (e) => 'error ' + e);
(async () => {
  const r = [];
  r.push(await post('/api/call/SetRunLimits', ${JSON.stringify(limits)}));
  r.push(await post('/api/call/CreateAssistant', '[{"name":"planted"}]'));
  r.push(await post('/api/upload', 'planted,data\\n1,2\\n', { 'Content-Type': 'text/plain', 'X-File-Name': 'planted.csv' }));
  r.push(await post('/api/call/SaveImage', JSON.stringify([${JSON.stringify(precious)}])));
  r.push(await post('/api/call/SaveImage', JSON.stringify([${JSON.stringify(fresh)}])));
  r.push(await post('/api/call/ExportImage', '[]'));
  r.push(await post('/api/call/SetRunLimits?k=guess', ${JSON.stringify(limits)}));
  document.getElementById('f').submit();
  await new Promise((ok) => setTimeout(ok, 1500));
  document.title = 'done ' + r.join(',');
})();
</script></body></html>`;
}

test('a page on another loopback port cannot change anything through the bridge', async () => {
  const before = await srv.call('RunLimits');
  const precious = join(scratch, 'precious.txt');
  const fresh = join(scratch, 'fresh.tar');
  writeFileSync(precious, 'my thesis\n');

  // The user has the app open: the cookie is in the browser.
  const ctx = await browser.newContext();
  const app = await ctx.newPage();
  await app.goto(srv.url);
  await app.waitForSelector('nav >> text=rehome');

  hostile = createServer((req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(hostilePage(srv.base, precious, fresh));
  });
  await new Promise((ok) => hostile.listen(0, '127.0.0.1', ok));
  hostileURL = `http://127.0.0.1:${hostile.address().port}/`;
  assert.notEqual(new URL(hostileURL).port, new URL(srv.base).port);

  const evil = await ctx.newPage();
  await evil.goto(hostileURL);
  await evil.waitForFunction(() => document.title.startsWith('done'), null, { timeout: 30000 });
  const title = await evil.title();
  assert.match(title, /^done (sent,){6}sent$/, `the hostile requests did not all leave the browser: ${title}`);

  // Every attack reached the bridge and was refused (not merely blocked
  // by the browser, which would make this test prove nothing).
  const log = readFileSync(join(srv.home, 'rehome.log'), 'utf8');
  const refused = (log.match(/bridge call refused/g) ?? []).length;
  assert.ok(refused >= 8, `only ${refused} refusals logged:\n${log}`);

  // Nothing changed.
  assert.deepEqual(await srv.call('RunLimits'), before);
  assert.deepEqual(await srv.call('ListAssistants'), []);
  assert.equal(readFileSync(precious, 'utf8'), 'my thesis\n');
  assert.ok(!existsSync(fresh), 'SaveImage wrote a file for the hostile page');
  assert.ok(!existsSync(join(srv.home, 'uploads')), 'a file was planted in the data folder');

  // And through the real page: its calls work (it has the token) and it
  // shows the limits as they were.
  await app.evaluate(() => (location.hash = '#/settings'));
  await app.locator('[data-testid=limit-timeout_s][max]').waitFor();
  assert.equal(await app.getByTestId('limit-timeout_s').inputValue(), String(before.timeout_ns / 1e9));
  const seen = await app.evaluate(async () => {
    const t = document.querySelector('meta[name="rehome-token"]').content;
    const res = await fetch('/api/call/ListAssistants', { method: 'POST', body: '[]', headers: { 'X-Rehome-Token': t } });
    return res.json();
  });
  assert.deepEqual(seen, { result: [] });
  await app.screenshot({ path: join(artifacts, 'browser-crossorigin-settings.png') });
  await ctx.close();
});

test('the bridge page cannot be framed by another page', async () => {
  const ctx = await browser.newContext();
  const app = await ctx.newPage();
  await app.goto(srv.url);
  await app.waitForSelector('nav >> text=rehome');
  const framer = createServer((req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(`<!doctype html><iframe id="x" src="${srv.base}/"></iframe>`);
  });
  await new Promise((ok) => framer.listen(0, '127.0.0.1', ok));
  try {
    const evil = await ctx.newPage();
    await evil.goto(`http://127.0.0.1:${framer.address().port}/`);
    await evil.waitForTimeout(1500);
    const frame = evil.frames().find((f) => f !== evil.mainFrame());
    const hasNav = frame ? await frame.locator('nav').count().catch(() => 0) : 0;
    assert.equal(hasNav, 0, 'the app rendered inside a foreign page');
  } finally {
    framer.close();
    await ctx.close();
  }
});
