// Shared set-up for the browser end-to-end tests: starts `rehome serve` on
// a free loopback port with a fresh data directory, and a headless
// Chromium driven by playwright-core.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

export const bin = resolve(process.env.REHOME_BIN ?? '../build/bin/rehome');
export const artifacts = resolve(process.env.ARTIFACTS ?? '../build/test-artifacts');

/** Starts `rehome serve`; resolves to { url, base, token, home, proc, stop, call }. */
export async function startServe({ home } = {}) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`make build\` first`);
  const ownHome = !home;
  home ??= mkdtempSync(join(tmpdir(), 'rehome-e2e-'));
  const env = { ...process.env, REHOME_HOME: home };
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
