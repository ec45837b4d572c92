// Helpers for the real-window tests that drive the built window on an
// Xvfb display (window-tour.test.mjs): Xvfb on a free display, rehome on a
// fresh data folder with the window at a given size, the UI's milestones
// read from rehome's log, clicks with xdotool and shots of the window
// alone. (window.test.mjs holds its own copies of the first of these.)
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, artifacts } from './harness.mjs';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const convert = existsSync('/usr/bin/convert') ? '/usr/bin/convert' : 'convert';

/** Starts Xvfb (w×h) on a free display; resolves to { env, x(cmd, args), stop }. */
export function startXvfb(w = 1600, h = 1000) {
  return new Promise((ok, fail) => {
    const p = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', `${w}x${h}x24`, '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    let num = '';
    p.stdio[3].on('data', (d) => {
      num += d;
      if (!num.includes('\n')) return;
      const env = { ...process.env, DISPLAY: ':' + num.trim(), GDK_BACKEND: 'x11', NO_AT_BRIDGE: '1' };
      delete env.WAYLAND_DISPLAY;
      const x = (cmd, args) => execFileSync(cmd, args, { env, timeout: 20000 }).toString();
      ok({ env, x, stop: () => p.kill('SIGTERM') });
    });
    p.on('exit', (code) => fail(new Error(`Xvfb exited with ${code}: ${err} (install it: apt-get install xvfb)`)));
  });
}

export function logText(log) {
  return existsSync(log) ? readFileSync(log, 'utf8') : '';
}

/** Waits for a log line matching re after line `since`; returns the parsed lines that match. */
export async function waitLog(log, re, timeoutMs, what, since = 0) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const hits = logText(log).split('\n').slice(since).filter((l) => re.test(l)).map((l) => JSON.parse(l));
    if (hits.length) return hits;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; log:\n${logText(log).slice(-3000)}`);
    await sleep(100);
  }
}

export function logLines(log) {
  return logText(log).split('\n').length - 1;
}

/** The last "screen shown" of screen after line since, once it holds every marker. */
export async function waitScreen(log, screen, markers = [], since = 0, timeoutMs = 30000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const seen = logText(log).split('\n').slice(since).filter((l) => l.includes('"event":"screen shown"')).map((l) => JSON.parse(l));
    const hit = seen.filter((e) => e.screen === screen && markers.every((m) => e.markers.split(',').includes(m) || (e.fields && m in e.fields))).pop();
    if (hit) return hit;
    if (Date.now() > end) throw new Error(`the ${screen} screen never showed ${markers.join(', ')}; it reported:\n${seen.map((e) => JSON.stringify(e)).join('\n')}`);
    await sleep(100);
  }
}

/**
 * Starts rehome on a data folder (a fresh one unless home is given) with
 * its window at size; resolves once the UI says it is ready.
 */
export async function launch(X, name, { size = { width: 1280, height: 800 }, home, args = [], env = {} } = {}) {
  home ??= mkdtempSync(join(tmpdir(), `rehome-tour-${name}-`));
  writeFileSync(join(home, 'window.json'), JSON.stringify({ ...size, x: 60, y: 40, maximised: false }));
  const log = join(home, 'rehome.log');
  const since = logLines(log);
  const proc = spawn(bin, args, { env: { ...X.env, ...env, REHOME_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  const exited = new Promise((r) => proc.once('exit', r));
  const t0 = Date.now();
  await Promise.race([
    waitLog(log, /"ui ready"/, 60000, 'the UI to report ready', since),
    exited.then((code) => {
      throw new Error(`rehome exited with ${code} before its UI was ready:\n${out}`);
    }),
  ]);
  const readyMs = Date.now() - t0;
  const id = await windowId(X);
  const stop = async () => {
    if (proc.exitCode === null) {
      proc.kill('SIGTERM');
      await Promise.race([exited, sleep(10000)]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  };
  return { home, log, proc, id, readyMs, since, stop, output: () => out };
}

async function windowId(X) {
  const end = Date.now() + 15000;
  for (;;) {
    try {
      for (const id of X.x('xdotool', ['search', '--onlyvisible', '--name', '^rehome$']).trim().split('\n')) {
        const g = X.x('xdotool', ['getwindowgeometry', '--shell', id]);
        if (Number(/WIDTH=(\d+)/.exec(g)[1]) > 400) return id;
      }
    } catch {
      // not mapped yet
    }
    if (Date.now() > end) throw new Error('no visible window titled rehome');
    await sleep(200);
  }
}

export function geometry(X, id) {
  const g = X.x('xdotool', ['getwindowgeometry', '--shell', id]);
  const n = (k) => Number(new RegExp(`${k}=(-?\\d+)`).exec(g)[1]);
  return { x: n('X'), y: n('Y'), width: n('WIDTH'), height: n('HEIGHT') };
}

/** Clicks at window coordinates. */
export function click(X, id, wx, wy) {
  const g = geometry(X, id);
  X.x('xdotool', ['mousemove', '--sync', String(g.x + wx), String(g.y + wy), 'click', '1']);
}

/** Turns the wheel down (up when n < 0) n notches over window coordinates. */
export function wheel(X, id, wx, wy, n) {
  const g = geometry(X, id);
  // No --sync: it waits for ever when the pointer is already there.
  X.x('xdotool', ['mousemove', String(g.x + wx), String(g.y + wy), 'click', '--repeat', String(Math.abs(n)), '--delay', '30', n < 0 ? '4' : '5']);
}

/** Presses keys (xdotool names: Escape, Tab, ctrl+shift+5) in the window. */
export function keys(X, id, ...names) {
  X.x('xdotool', ['windowactivate', '--sync', id]);
  for (const k of names) X.x('xdotool', ['key', '--clearmodifiers', k]);
}

function histogram(file) {
  return execFileSync(convert, [file, '-depth', '8', '-format', '%c', 'histogram:info:-'], { maxBuffer: 64 << 20 }).toString();
}

/** A shot of the window alone, once two in a row agree (the screen has painted). */
export async function windowShot(X, id, name, dir = artifacts) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.png`);
  let prev = '';
  const end = Date.now() + 20000;
  for (;;) {
    X.x('import', ['-window', id, file]);
    const h = histogram(file);
    if ((h === prev && h.split('\n').length > 40) || Date.now() > end) return file;
    prev = h;
    await sleep(200);
  }
}

/** The colour (r, g, b) of a pixel of a shot. */
export function pixel(file, px, py) {
  const out = execFileSync(convert, [file, '-format', `%[pixel:p{${px},${py}}]`, 'info:-']).toString();
  const m = /(\d+),(\d+),(\d+)/.exec(out);
  return m ? m.slice(1, 4).map(Number) : [0, 0, 0];
}
