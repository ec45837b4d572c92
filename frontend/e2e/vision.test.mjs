// Images in Ask, in a browser through the bridge, against llama.cpp's real
// llama-server serving the tiny model with its tiny projector (--mmproj:
// the server says it reads images; tinymodel.VisionScript answers "The
// chart shows bars."). A chart pasted into the question (a paste event
// carrying the PNG, as a screenshot's) is shown to the model: the request
// that reached llama-server (recorded by a pass-through in front of it)
// holds the question and the image as an image_url part, the PNG's
// metadata stripped. A hostile PNG (30000 px on a side, a few hundred
// bytes), added with the file input, is refused in words on the screen,
// and nothing is sent. Without llama-server: skipped.
//
// Screenshots: $ARTIFACTS/browser-vision-answer.png, browser-vision-refused.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { startServe, launchBrowser, artifacts, startLlama, chosenModel, serverField } from './harness.mjs';

let srv, browser, llama, tap, dir;

// A PNG from scratch: w×h RGB, the pixel colours from px(x, y); extra
// chunks after the header (a tEXt with a secret, say).
const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function chunk(type, data) {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  let c = 0xffffffff;
  for (const b of body) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE((c ^ 0xffffffff) >>> 0);
  return Buffer.concat([len, body, crc]);
}
function png(w, h, px, extra = []) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = Buffer.alloc(h * (1 + 3 * w));
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) raw.set(px(x, y), y * (1 + 3 * w) + 1 + 3 * x);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), ...extra, chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** A pass-through in front of llama-server that keeps the chat requests' bodies. */
function recordingTap(target) {
  const t = new URL(target);
  const bodies = [];
  const s = createServer((req, res) => {
    const parts = [];
    req.on('data', (d) => parts.push(d));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      if (req.url.includes('/chat/completions')) bodies.push(body.toString());
      const up = request({ host: t.hostname, port: t.port, path: req.url, method: req.method, headers: { ...req.headers, host: t.host } }, (r) => {
        res.writeHead(r.statusCode, r.headers);
        r.pipe(res);
      });
      up.on('error', (e) => res.writeHead(502).end(String(e)));
      up.end(body);
    });
  });
  s.bodies = bodies;
  return new Promise((ok) => s.listen(0, '127.0.0.1', () => ok(s)));
}

before(async () => {
  llama = await startLlama({ script: 'vision', vision: true });
  if (llama.skip) return;
  tap = await recordingTap(llama.url);
  srv = await startServe();
  browser = await launchBrowser();
  dir = mkdtempSync(join(tmpdir(), 'rehome-vision-'));
  mkdirSync(artifacts, { recursive: true });
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  tap?.close();
  llama?.stop?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function askPage() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(90000);
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(srv.url);
  await page.evaluate(() => (location.hash = '#/ask'));
  const url = `http://127.0.0.1:${tap.address().port}/v1`;
  await (await serverField(page)).fill(url);
  await page.getByTestId('ask-server-url').press('Enter');
  await page.waitForFunction((u) => [...document.querySelectorAll('[data-testid=ask-model] option')].some((o) => o.value === `${u}|rehome-tiny`), url);
  await page.getByTestId('ask-model').selectOption(`${url}|rehome-tiny`);
  assert.equal(await chosenModel(page, `${url}|rehome-tiny`), `${url}|rehome-tiny`);
  return { page, errors };
}

test('a chart pasted into Ask reaches llama-server as an image part, its metadata stripped', async (t) => {
  if (llama.skip) return t.skip(llama.skip);
  // A red line on white, 64×48, with a secret in a tEXt chunk.
  const chart = png(64, 48, (x, y) => (y === 40 - (x >> 1) ? [200, 30, 30] : [255, 255, 255]), [chunk('tEXt', Buffer.from('Comment\0secret-location-51.5N', 'latin1'))]);
  const { page, errors } = await askPage();
  const sent = tap.bodies.length;
  // The paste a screenshot makes: a ClipboardEvent whose data holds the file.
  await page.getByTestId('ask-input').focus();
  await page.getByTestId('ask-input').evaluate((el, b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'chart.png', { type: 'image/png' }));
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, chart.toString('base64'));
  await page.getByTestId('ask-file-chip').filter({ hasText: 'chart.png' }).waitFor();
  assert.match(await page.getByTestId('ask-image-note').innerText(), /rehome-tiny is shown the image/);
  assert.equal(await page.getByTestId('ask-input').inputValue(), '', 'the paste put text in the question');
  await page.getByTestId('ask-input').fill('What does the chart show?');
  await page.getByTestId('ask-send').click();
  const answer = page.getByTestId('ask-answer').last();
  await answer.waitFor({ timeout: 120000 });
  await page.waitForFunction(() => /The chart shows bars\./.test(document.querySelector('[data-testid=ask-answer]')?.textContent ?? ''));
  await page.screenshot({ path: join(artifacts, 'browser-vision-answer.png'), fullPage: true });

  const bodies = tap.bodies.slice(sent);
  assert.equal(bodies.length, 1, `${bodies.length} model requests`);
  const last = JSON.parse(bodies[0]).messages.at(-1);
  assert.equal(last.role, 'user');
  assert.ok(Array.isArray(last.content), `the question went as text alone: ${JSON.stringify(last.content).slice(0, 200)}`);
  assert.equal(last.content[0].type, 'text');
  assert.match(last.content[0].text, /What does the chart show\?/);
  const img = last.content.find((p) => p.type === 'image_url');
  assert.ok(img, 'no image part');
  assert.match(img.image_url.url, /^data:image\/png;base64,/);
  const bytes = Buffer.from(img.image_url.url.replace(/^data:image\/png;base64,/, ''), 'base64');
  assert.equal(bytes.subarray(1, 4).toString(), 'PNG');
  assert.equal(bytes.readUInt32BE(16), 64, 'width');
  assert.equal(bytes.readUInt32BE(20), 48, 'height');
  assert.ok(!bytes.includes('secret-location') && !bytes.includes('tEXt'), 'the PNG was sent with its metadata');
  assert.deepEqual(errors, []);
});

test('a 30000 px PNG added to Ask is refused in words on the screen, nothing sent', async (t) => {
  if (llama.skip) return t.skip(llama.skip);
  const file = join(dir, 'hostile.png');
  writeFileSync(file, png(30000, 1, () => [255, 255, 255]));
  const { page, errors } = await askPage();
  const sent = tap.bodies.length;
  await page.getByTestId('ask-file-input').setInputFiles(file);
  await page.getByTestId('ask-file-chip').filter({ hasText: 'hostile.png' }).waitFor();
  await page.getByTestId('ask-input').fill('What is in this picture?');
  await page.getByTestId('ask-send').click();
  const refusal = page.getByTestId('ask-error');
  await refusal.waitFor({ timeout: 120000 });
  const words = await refusal.innerText();
  assert.match(words, /hostile\.png/);
  assert.match(words, /30000 × 1 pixels, at most 12000 on a side/);
  await page.screenshot({ path: join(artifacts, 'browser-vision-refused.png'), fullPage: true });
  assert.equal(tap.bodies.length, sent, 'a request reached the model');
  assert.deepEqual(errors, []);
});
