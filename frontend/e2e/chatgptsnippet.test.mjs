import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser, bin } from './harness.mjs';

// The export snippet, run in a real browser against a loopback stand-in
// for chatgpt.com that serves real GPT records (the store's, from
// backend/assistant/testdata/gpts) on the paths the snippet calls: it
// follows the owner's list page by page, reads each GPT by id with the
// page's token, saves one file without the token, and rehome imports
// that file whole. (chatgpt.com itself is never reached: no test may.)
const fixture = (name) => JSON.parse(readFileSync(new URL(`../../backend/assistant/testdata/gpts/${name}`, import.meta.url), 'utf8'));
const snippet = readFileSync(new URL('../../backend/assistant/chatgpt_export.js', import.meta.url), 'utf8');
const token = 'session-token-canary-7f3a';

const records = [...fixture('store_list_writing.json').list.items.map((it) => it.resource), fixture('humanizer_oauth.json')];
const byId = new Map(records.map((r) => [r.gizmo.id, r]));
const calls = [];
const methods = new Set();

let server, base, browser;
before(async () => {
  server = createServer((req, res) => {
    calls.push(req.url);
    methods.add(req.method);
    const url = new URL(req.url, 'http://x');
    const json = (v) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(v));
    if (url.pathname === '/') return res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>ChatGPT</title><body></body>');
    if (url.pathname === '/api/auth/session') return json({ accessToken: token, user: { name: 'owner' } });
    if (req.headers.authorization !== 'Bearer ' + token) return res.writeHead(401).end('{"detail":"no token"}');
    if (url.pathname === '/backend-api/gizmos/discovery/mine') {
      // Two pages: the snippet must follow the cursor.
      const page = url.searchParams.get('cursor') === 'page2' ? records.slice(2) : records.slice(0, 2);
      const cursor = url.searchParams.get('cursor') === 'page2' ? null : 'page2';
      return json({ info: { id: 'mine', title: 'My GPTs' }, list: { items: page.map((r) => ({ resource: { gizmo: r.gizmo } })), cursor } });
    }
    const m = url.pathname.match(/^\/backend-api\/gizmos\/(g-[A-Za-z0-9]+)$/);
    if (m && byId.has(m[1])) return json(byId.get(m[1]));
    res.writeHead(404).end('{"detail":"not found"}');
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  server?.close();
});

test('the snippet saves every GPT of the owner, and rehome imports the file', async () => {
  const page = await browser.newPage({ acceptDownloads: true });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(base + '/');
  const download = page.waitForEvent('download');
  await page.evaluate(snippet);
  const d = await download;
  assert.equal(d.suggestedFilename(), 'my-gpts.rehome.json');
  const dir = mkdtempSync(join(tmpdir(), 'rehome-snippet-'));
  const file = join(dir, 'my-gpts.rehome.json');
  await d.saveAs(file);
  const text = readFileSync(file, 'utf8');
  assert.ok(!text.includes(token), 'the saved file holds the ChatGPT token');
  const saved = JSON.parse(text);
  assert.equal(saved.list.items.length, 4);
  assert.deepEqual(errors, []);
  // Only GETs of the paths docs/chatgpt-export.md names.
  for (const c of calls.filter((c) => c !== '/favicon.ico')) assert.match(c, /^\/($|api\/auth\/session$|backend-api\/gizmos\/(discovery\/mine\?limit=50(&cursor=page2)?|g-[A-Za-z0-9]+)$)/);
  assert.ok(calls.includes('/backend-api/gizmos/discovery/mine?limit=50&cursor=page2'), calls.join(' '));
  assert.deepEqual([...methods], ['GET']);

  const home = mkdtempSync(join(tmpdir(), 'rehome-home-'));
  const out = execFileSync(bin, ['assistants', 'import', file, '--json'], { env: { PATH: process.env.PATH, HOME: home, REHOME_HOME: home } });
  const rep = JSON.parse(out.toString());
  assert.equal(rep.imported, 4);
  assert.deepEqual(rep.items.map((it) => it.source_id).sort(), [...byId.keys()].sort());
  const oauth = rep.items.find((it) => it.source_id === 'g-2azCVmXdy').assistant.actions[0];
  assert.equal(oauth.auth, 'oauth');
  writeFileSync(join(dir, 'report.json'), out);
  await page.close();
});
