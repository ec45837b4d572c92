// Pull where the network allows it: the Hardware screen's model rows get a
// Pull button when an Ollama server runs, and Ollama pulls (its POST
// /api/pull, NDJSON progress). A loopback server answers as Ollama does,
// replaying its recorded stream (backend/llm/testdata/ollama-pull-llama3.2.md
// says where each byte comes from); OLLAMA_HOST points rehome at it.
// Without Ollama the row names the file to carry instead.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServe, launchBrowser, openApp, testdata } from './harness.mjs';

const lines = readFileSync(join(testdata, 'ollama-pull-llama3.2.ndjson'), 'utf8').trimEnd().split('\n');
let browser;
before(async () => (browser = await launchBrowser()));
after(async () => browser?.close());

/** A loopback Ollama: mode 'all' streams every line, 'hold' stops after
 * five and holds the connection, 'error' sends Ollama's error line. */
function fakeOllama(mode) {
  const seen = { asked: [], closed: false };
  return new Promise((ok) => {
    const s = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', async () => {
        if (req.url === '/') return res.end('Ollama is running');
        if (req.url !== '/api/pull') return res.writeHead(404).end();
        seen.asked.push(JSON.parse(body).model);
        res.on('close', () => (seen.closed = true));
        res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
        const n = mode === 'all' ? lines.length : mode === 'hold' ? 5 : 3;
        for (const l of lines.slice(0, n)) {
          res.write(l + '\n');
          await new Promise((r) => setTimeout(r, 120)); // Ollama sends one every 60 ms per blob
        }
        if (mode === 'error') res.write('{"error":"max retries exceeded: dial tcp: lookup registry.ollama.ai: no such host"}\n');
        if (mode !== 'hold') res.end();
      });
    });
    s.listen(0, '127.0.0.1', () => ok({ s, seen, host: `127.0.0.1:${s.address().port}` }));
  });
}

async function serveWith(ollamaHost) {
  const saved = process.env.OLLAMA_HOST;
  process.env.OLLAMA_HOST = ollamaHost;
  try {
    return await startServe();
  } finally {
    if (saved === undefined) delete process.env.OLLAMA_HOST;
    else process.env.OLLAMA_HOST = saved;
  }
}

async function openRow(page, id) {
  const row = page.locator(`[data-testid="fit-row"][data-model="${id}"]`);
  await row.waitFor();
  await row.click();
  const get = page.locator(`[data-testid="get-model"][data-model="${id}"]`);
  await get.waitFor();
  return get;
}

test('Pull: Ollama pulls the catalog tag, with progress in GiB, to the end', async () => {
  const o = await fakeOllama('all');
  const srv = await serveWith(o.host);
  try {
    const page = await openApp(browser, srv.url, { hash: '#/hardware' });
    const get = await openRow(page, 'llama-3.2-1b-instruct');
    await get.getByTestId('pull-button').click();
    await page.waitForFunction(() => /pulling dde5aa3fc5ff: [\d.]+ GiB of 1\.9 GiB \(\d+%\)/.test(document.querySelector('[data-testid="pull-progress"]')?.textContent ?? ''));
    const done = get.getByTestId('pull-done');
    await done.waitFor({ timeout: 20000 });
    assert.match(await done.textContent(), /Pulled llama3\.2:1b \(1\.9 GiB\)/);
    assert.deepEqual(o.seen.asked, ['llama3.2:1b']);
  } finally {
    await srv.stop();
    o.s.close();
  }
});

test('Pull: Cancel mid-stream ends the pull and Ollama sees the connection go', async () => {
  const o = await fakeOllama('hold');
  const srv = await serveWith(o.host);
  try {
    const page = await openApp(browser, srv.url, { hash: '#/hardware' });
    const get = await openRow(page, 'llama-3.2-1b-instruct');
    await get.getByTestId('pull-button').click();
    await page.waitForFunction(() => (document.querySelector('[data-testid="pull-progress"]')?.textContent ?? '').includes('0.3 GiB of 1.9 GiB'));
    await get.getByTestId('pull-cancel').click();
    const err = get.getByTestId('pull-error');
    await err.waitFor();
    assert.match(await err.textContent(), /the pull was cancelled: llama3\.2:1b/);
    await get.getByTestId('pull-button').waitFor(); // it can be pulled again
    for (let i = 0; i < 50 && !o.seen.closed; i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(o.seen.closed, 'Ollama still holds the connection after Cancel');
  } finally {
    await srv.stop();
    o.s.close();
  }
});

test("Pull: Ollama's error line comes back in words", async () => {
  const o = await fakeOllama('error');
  const srv = await serveWith(o.host);
  try {
    const page = await openApp(browser, srv.url, { hash: '#/hardware' });
    const get = await openRow(page, 'llama-3.2-1b-instruct');
    await get.getByTestId('pull-button').click();
    const err = get.getByTestId('pull-error');
    await err.waitFor({ timeout: 20000 });
    assert.match(await err.textContent(), /the Ollama server could not pull llama3\.2:1b: max retries exceeded.*rehome models add FILE/);
  } finally {
    await srv.stop();
    o.s.close();
  }
});

test('no Ollama: no Pull button, and the row names the file to carry', async () => {
  const srv = await serveWith('127.0.0.1:1');
  try {
    const page = await openApp(browser, srv.url, { hash: '#/hardware' });
    const get = await openRow(page, 'llama-3.2-1b-instruct');
    const carry = get.getByTestId('carry-file');
    await page.waitForFunction(() => (document.querySelector('[data-testid="carry-file"]')?.textContent ?? '').includes('No Pull button'));
    const text = (await carry.textContent()).replace(/\s+/g, ' ');
    assert.match(text, /carry llama-3\.2-1b-instruct-[a-z0-9_]+\.gguf \(about [\d.]+ GB\)/);
    assert.match(text, /rehome models add FILE/);
    assert.match(text, /no Ollama server answers at http:\/\/127\.0\.0\.1:1/);
    assert.equal(await page.getByTestId('pull-button').count(), 0);
  } finally {
    await srv.stop();
  }
});
