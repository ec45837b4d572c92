// Shared set-up for the browser end-to-end tests: starts `rehome serve` on
// a free loopback port with a fresh data directory, and a headless
// Chromium driven by playwright-core.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

/** The repository's root, and the ask loop's recorded transcripts and CSVs. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const testdata = join(root, 'backend/llm/testdata');

export const bin = resolve(process.env.REHOME_BIN ?? '../build/bin/rehome');
export const artifacts = resolve(process.env.ARTIFACTS ?? '../build/test-artifacts');

/** Starts `rehome serve` (with extra environment variables env); resolves to { url, base, token, home, proc, stop, call }. */
export async function startServe({ home, env: extra = {} } = {}) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`make build\` first`);
  const ownHome = !home;
  home ??= mkdtempSync(join(tmpdir(), 'rehome-e2e-'));
  const env = { ...process.env, ...extra, REHOME_HOME: home };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  const proc = spawn(bin, ['serve', '--addr', '127.0.0.1:0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`rehome serve printed no URL; stderr: ${stderr}`)), 20000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/^(http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)$/m);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    });
    proc.on('exit', (code) => fail(new Error(`rehome serve exited with ${code}; stderr: ${stderr}`)));
  });
  const base = url.split('/?')[0];
  const token = url.split('token=')[1];
  const stop = async () => {
    if (proc.exitCode === null) {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    }
    if (ownHome) rmSync(home, { recursive: true, force: true });
  };
  // call reaches the same bridge the page uses, with the token.
  const call = async (method, ...args) => {
    const res = await fetch(`${base}/api/call/${method}`, {
      method: 'POST',
      body: JSON.stringify(args),
      headers: { 'X-Rehome-Token': token },
    });
    const body = await res.json();
    if (body.error) throw new Error(body.error);
    return body.result;
  };
  return { url, base, token, home, proc, stop, call, stderr: () => stderr };
}

/** Launches headless Chromium with the flags this machine needs. */
export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** Opens the app's URL in a new page and waits for the shell to render. */
export async function openApp(browser, url, { hash = '' } = {}) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  if (hash) await page.evaluate((h) => (location.hash = h), hash);
  await page.waitForSelector('nav >> text=rehome');
  page.jsErrors = errors;
  return page;
}

/**
 * A loopback server that looks like Ollama and answers each chat request
 * with the next recorded answer of its scenarios (backend/llm/testdata/NAME,
 * one scenario after another), event by event, as tokens arrive over time. Resolves to the listening
 * http.Server; its URL for the ask loop is http://127.0.0.1:PORT/v1. Its
 * `bodies` are the chat requests' bodies, as sent, in order.
 */
export function recordedOllama(...scenarios) {
  let asked = 0;
  const bodies = [];
  // Each scenario's answers, one after another.
  const answers = scenarios.flatMap((sc) =>
    readdirSync(join(testdata, sc)).filter((f) => /^\d\d/.test(f)).sort().map((f) => join(testdata, sc, f)),
  );
  const disc = (f) => readFileSync(join(testdata, 'discovery', f));
  return new Promise((ok) => {
    const s = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', async () => {
        if (req.url === '/') return res.end(disc('ollama-root.txt'));
        if (req.url === '/v1/models') return res.end(disc('ollama-models.json'));
        if (req.url === '/api/show') return res.end(disc(`ollama-show-${JSON.parse(body).model.split(':')[0]}.json`));
        if (req.url !== '/v1/chat/completions') return res.writeHead(404).end();
        bodies.push(body);
        const f = answers[asked++];
        if (!f) return res.writeHead(500).end('{"error":{"message":"no more recorded answers"}}');
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        for (const ev of readFileSync(f, 'utf8').split(/(?<=\n\n)/)) {
          res.write(ev);
          await new Promise((r) => setTimeout(r, 15)); // tokens arrive over time
        }
        res.end();
      });
    });
    s.bodies = bodies;
    s.listen(0, '127.0.0.1', () => ok(s));
  });
}

/** The llama-server to run: $REHOME_LLAMA_SERVER, else the cached build (`make llama`), else null. */
function llamaBinary() {
  if (process.env.REHOME_LLAMA_SERVER) return existsSync(process.env.REHOME_LLAMA_SERVER) ? process.env.REHOME_LLAMA_SERVER : null;
  try {
    return execFileSync('bash', [join(root, 'build/llm/llama-server.sh'), '--find'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch {
    return null;
  }
}

function freePort() {
  return new Promise((ok, fail) => {
    const s = createNetServer();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => ok(p));
    });
  });
}

/**
 * Starts llama.cpp's real llama-server serving the tests' tiny hand-set
 * model (internal/testsupport/tinymodel) as "rehome-tiny", as internal/testsupport/llamatest
 * does for the Go tests. Resolves to { url, model, stop } once /health
 * answers (vision: with the tiny projector, --mmproj, so the model reads
 * images), or to { skip: reason } when there is no llama-server; throws
 * instead when REHOME_REQUIRE_LLAMA is set.
 */
export async function startLlama({ script = 'python', vision = false } = {}) {
  const bin = llamaBinary();
  if (!bin) {
    const why = 'no llama-server: `make llama` builds it, or set REHOME_LLAMA_SERVER';
    if (process.env.REHOME_REQUIRE_LLAMA) throw new Error(`REHOME_REQUIRE_LLAMA is set but there is ${why}`);
    return { skip: why };
  }
  const dir = mkdtempSync(join(tmpdir(), 'rehome-llama-'));
  const model = join(dir, 'tiny.gguf');
  // vision: the tiny projector beside it (--mmproj), so the model reads images.
  const proj = vision ? ['-mmproj', join(dir, 'mmproj.gguf')] : [];
  execFileSync('go', ['run', './internal/testsupport/tinymodel/cmd/tinymodel', '-src', dirname(bin), '-script', script, '-o', model, ...proj], { cwd: root, stdio: 'inherit' });
  const port = await freePort();
  const proc = spawn(bin, ['-m', model, '--host', '127.0.0.1', '--port', String(port), '--jinja', '-c', '4096',
    '--threads', '1', '-np', '1', '--no-webui', '--alias', 'rehome-tiny', ...(vision ? ['--mmproj', proj[1]] : [])], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr.on('data', (d) => (log = (log + d).slice(-8000)));
  const stop = () => {
    proc.kill();
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
    } catch {}
    if (proc.exitCode !== null || i >= 600) {
      stop();
      throw new Error(`llama-server did not become healthy:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `http://127.0.0.1:${port}/v1`, model: 'rehome-tiny', stop };
}

/**
 * The Ask screen's chosen model ("server|model") once it is `want`, or
 * whatever it is after 10 s: the screen picks its choice a moment after
 * the model list arrives, so reading it at once races that.
 */
export async function chosenModel(page, want) {
  await page
    .waitForFunction((w) => document.querySelector('[data-testid=ask-model]')?.value === w, want, { timeout: 10000 })
    .catch(() => {});
  return page.getByTestId('ask-model').inputValue();
}

/**
 * Ask's server field: offered when no model answers, else opened from the
 * header's Servers… button (it is not in the header itself).
 */
export async function serverField(page) {
  await page.waitForFunction(() => document.querySelector('[data-testid=ask-server-url]') || document.querySelector('[data-testid=ask-model]'));
  if (!(await page.getByTestId('ask-server-url').count())) await page.getByTestId('ask-servers').click();
  return page.getByTestId('ask-server-url');
}
