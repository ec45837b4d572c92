// The real window: the built binary on an Xvfb display, driven like a
// person would — a mouse dragging a CSV from another GTK window, clicks,
// keys — and photographed. The checks read the screen (a blank or
// error-showing screen fails) and rehome's log, where the UI records its
// milestones (ui ready, preview shown, plot shown, run finished).
//
// Ask in words in the window: a CSV dragged onto the Ask screen, a typed
// question, the answer streamed back with its plot inline, against a
// loopback server replaying a recorded Ollama transcript and against the
// real llama-server with the tests' tiny model (skipped with the reason
// without one, failing instead when REHOME_REQUIRE_LLAMA is set).
//
// Screenshots land in $ARTIFACTS (build/test-artifacts): window-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bin, artifacts, recordedOllama, startLlama, testdata } from './harness.mjs';
import { countingServer, hostileZim } from './zimfixture.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const convert = existsSync('/usr/bin/convert') ? '/usr/bin/convert' : 'convert';
// Debian's python3 has python3-gi; a version manager's python3 may not.
const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const W = 1600;
const H = 1000;
// Where the window is put (window.json) so clicks land where they should.
const win = { width: 1240, height: 820, x: 300, y: 120 };
// Sidebar buttons, in window coordinates (App.svelte's nav).
const nav = { hardware: 80, assistants: 120, audit: 160, code: 200, ask: 240, settings: 280 };
// What each screen must show once settled: its heading and a marker
// (data-testid) of its own content, as App.svelte's "screen shown" event
// reports them. Hardware: the machine's figures, not "Detecting…".
const content = {
  hardware: { heading: 'Hardware', markers: ['machine', 'cpu-model', 'ram-total'] },
  assistants: { heading: 'Assistants', markers: ['new-assistant', 'assistants-empty'] },
  audit: { heading: 'Audit', markers: ['audit-mode-assistants', 'audit-mode-features'] },
  code: { heading: 'Code Interpreter', markers: ['code-screen', 'choose-file'] },
  ask: { heading: 'Ask in words', markers: ['ask-new', 'ask-assistant', 'ask-server-url'] },
  settings: { heading: 'Settings', markers: ['sandbox-settings', 'sandbox-podman', 'sandbox-image'] },
};
const skipSandbox = process.env.REHOME_SKIP_SANDBOX === '1';

let X; // { display, env, stop }

/** Starts Xvfb on a free display; resolves once it accepts clients. */
function startXvfb() {
  return new Promise((ok, fail) => {
    const p = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', `${W}x${H}x24`, '-nolisten', 'tcp'], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    let num = '';
    p.stdio[3].on('data', (d) => {
      num += d;
      if (num.includes('\n')) {
        const display = ':' + num.trim();
        const env = { ...process.env, DISPLAY: display, GDK_BACKEND: 'x11', NO_AT_BRIDGE: '1' };
        delete env.WAYLAND_DISPLAY;
        ok({
          display,
          env,
          stop: () => {
            p.kill('SIGTERM');
          },
        });
      }
    });
    p.on('exit', (code) => fail(new Error(`Xvfb exited with ${code}: ${err} (install it: apt-get install xvfb)`)));
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function x(cmd, args) {
  return execFileSync(cmd, args, { env: X.env, timeout: 20000 }).toString();
}

/** Waits until the log holds a line matching re; returns the parsed lines that match. */
async function waitLog(log, re, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
    const hits = text.split('\n').filter((l) => re.test(l)).map((l) => JSON.parse(l));
    if (hits.length) return hits;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; log:\n${text.slice(-4000)}`);
    await sleep(100);
  }
}

/**
 * Starts rehome in a fresh data folder with the window at `win`; prepare,
 * if given, is called (and awaited) with the folder first (to add what the
 * window finds).
 */
async function launch(name, args = [], prepare = undefined) {
  const home = mkdtempSync(join(tmpdir(), `rehome-window-${name}-`));
  writeFileSync(join(home, 'window.json'), JSON.stringify({ ...win, maximised: false }));
  await prepare?.(home);
  const log = join(home, 'rehome.log');
  const proc = spawn(bin, args, { env: { ...X.env, REHOME_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  const exited = new Promise((r) => proc.once('exit', r));
  await Promise.race([
    waitLog(log, /"ui ready"/, 60000, 'the UI to report ready'),
    exited.then((code) => {
      throw new Error(`rehome exited with ${code} before its UI was ready:\n${out}`);
    }),
  ]);
  const id = (await windowId()).trim();
  return {
    home,
    log,
    proc,
    id,
    output: () => out,
    async stop() {
      if (proc.exitCode === null) {
        proc.kill('SIGTERM');
        await Promise.race([exited, sleep(10000)]);
        if (proc.exitCode === null) proc.kill('SIGKILL');
      }
    },
  };
}

/**
 * Waits until the log reports `screen` shown with its own heading and
 * content markers (App.svelte's "screen shown" event, sent each time the
 * screen settles), logged after `since` (a log line count).
 */
async function waitScreen(log, screen, since = 0) {
  const want = content[screen];
  const end = Date.now() + 30000;
  let seen = [];
  for (;;) {
    const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(since) : [];
    seen = lines.filter((l) => l.includes('"event":"screen shown"')).map((l) => JSON.parse(l));
    const hit = seen.find(
      // The markers line is cut at its length; a marker with a field's place
      // (e.fields) counts too, as xwin.mjs's waitScreen reads it.
      (e) => e.screen === screen && e.heading === want.heading && want.markers.every((m) => e.markers.split(',').includes(m) || (e.fields && m in e.fields)),
    );
    if (hit) return hit;
    if (Date.now() > end)
      throw new Error(`the ${screen} screen never showed its content (${want.heading}: ${want.markers.join(', ')}); it reported:\n${seen.map((e) => JSON.stringify(e)).join('\n')}`);
    await sleep(100);
  }
}

function logLines(log) {
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').length - 1 : 0;
}

/** Polls fn until it returns a truthy value; throws with `what` after timeoutMs. */
async function until(fn, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function windowId() {
  const end = Date.now() + 15000;
  for (;;) {
    try {
      const ids = x('xdotool', ['search', '--onlyvisible', '--name', '^rehome$']).trim().split('\n');
      for (const id of ids) {
        const g = x('xdotool', ['getwindowgeometry', '--shell', id]);
        if (Number(/WIDTH=(\d+)/.exec(g)[1]) > 400) return id;
      }
    } catch {
      // not mapped yet
    }
    if (Date.now() > end) throw new Error('no visible window titled rehome');
    await sleep(200);
  }
}

function geometry(id) {
  const g = x('xdotool', ['getwindowgeometry', '--shell', id]);
  const n = (k) => Number(new RegExp(`${k}=(-?\\d+)`).exec(g)[1]);
  return { x: n('X'), y: n('Y'), width: n('WIDTH'), height: n('HEIGHT') };
}

/** Clicks at window coordinates. */
function click(id, wx, wy) {
  const g = geometry(id);
  x('xdotool', ['mousemove', '--sync', String(g.x + wx), String(g.y + wy), 'click', '1']);
}

function shot(name) {
  mkdirSync(artifacts, { recursive: true });
  const file = join(artifacts, `window-${name}.png`);
  x('import', ['-window', 'root', file]);
  return file;
}

function histogram(file) {
  return execFileSync(convert, [file, '-depth', '8', '-format', '%c', 'histogram:info:-'], { maxBuffer: 64 << 20 }).toString();
}

/**
 * A screenshot of a settled, painted screen: shots until one shows more
 * than a blank page's handful of colours and the next is the same (the web
 * view has painted what the log said it shows). After 30 s it returns the
 * last shot as it is, for the checks to judge.
 */
async function stableShot(name) {
  let prev = '';
  const end = Date.now() + 30000;
  for (;;) {
    const file = shot(name);
    const h = histogram(file);
    if (h === prev && inspect(file).colours > 60) return file;
    if (Date.now() > end) return file;
    prev = h;
    await sleep(150);
  }
}

/**
 * Reads a screenshot: how many colours it has (a blank page has a
 * handful) and how many pixels carry the error box's tint (the .error
 * style: the --bad red at 10% over the panel or the page background).
 */
function inspect(file) {
  const hist = histogram(file);
  let colours = 0;
  let errorPx = 0;
  const tints = [
    [249, 234, 234],
    [241, 227, 229],
  ];
  for (const line of hist.split('\n')) {
    const m = /^\s*(\d+):\s*\(\s*(\d+),\s*(\d+),\s*(\d+)/.exec(line);
    if (!m) continue;
    colours++;
    const [n, r, g, b] = m.slice(1).map(Number);
    if (tints.some(([R, G, B]) => Math.abs(r - R) <= 2 && Math.abs(g - G) <= 2 && Math.abs(b - B) <= 2)) errorPx += n;
  }
  return { colours, errorPx };
}

function assertShows(file, what, { errors = true } = {}) {
  const { colours, errorPx } = inspect(file);
  assert.ok(colours > 60, `${what} looks blank (${colours} colours): ${file}`);
  if (errors) assert.ok(errorPx < 1500, `${what} shows an error box (${errorPx} tinted pixels): ${file}`);
}

function logErrors(log) {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"level":"ERROR"'));
}

function writeCSV(dir, name, rows = 2000) {
  let csv = 'order_id,day,region,product,units,price,returned\n';
  for (let i = 0; i < rows; i++) {
    csv += `${i},2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')},${['North', 'South', 'East', 'West'][i % 4]},SKU-${i % 37},${(i * 7) % 50},${((i * 13) % 500) / 4},${i % 7 === 0}\n`;
  }
  const p = join(dir, name);
  writeFileSync(p, csv);
  return p;
}

// A GTK window that offers one file for dragging, as a file manager does
// (text/uri-list). xdotool drags from it onto rehome.
const dragSource = `
import sys, urllib.parse, gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk, Gdk
path = sys.argv[1]
w = Gtk.Window(title="rehome-drag-source")
w.set_default_size(200, 100)
w.move(10, 10)
b = Gtk.Button(label="drag me")
b.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
b.drag_source_add_uri_targets()
b.connect("drag-data-get", lambda wid, ctx, data, info, t: data.set_uris(["file://" + urllib.parse.quote(path)]))
w.add(b)
w.connect("destroy", Gtk.main_quit)
w.show_all()
print("ready", flush=True)
Gtk.main()
`;

async function dragFile(path, toX, toY) {
  const py = join(tmpdir(), `rehome-drag-${process.pid}.py`);
  writeFileSync(py, dragSource);
  const src = spawn(python, [py, path], { env: X.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  src.stderr.on('data', (d) => (err += d));
  await new Promise((ok, fail) => {
    src.stdout.on('data', (d) => String(d).includes('ready') && ok());
    src.on('exit', (c) => fail(new Error(`the drag source exited with ${c}: ${err} (apt-get install python3-gi gir1.2-gtk-3.0)`)));
  });
  try {
    // The source's window mapped where the drag starts.
    await until(() => {
      try {
        return x('xdotool', ['search', '--onlyvisible', '--name', '^rehome-drag-source$']).trim();
      } catch {
        return '';
      }
    }, 15000, 'the drag source window');
    // Press on the source, move past GTK's drag threshold in steps, travel,
    // hover so the target sees the drag, release. The pauses pace the
    // gesture like a hand (GTK's drag needs motion spread over time); they
    // wait for nothing, and the drop's arrival is checked in the log.
    const pace = () => sleep(150);
    x('xdotool', ['mousemove', '--sync', '110', '60', 'mousedown', '1']);
    for (const [mx, my] of [[120, 70], [140, 90], [200, 150], [400, 300], [toX - 20, toY - 20], [toX, toY], [toX + 2, toY + 2]]) {
      await pace();
      x('xdotool', ['mousemove', '--sync', String(mx), String(my)]);
    }
    await pace();
    x('xdotool', ['mouseup', '1']);
  } catch (e) {
    src.kill('SIGTERM');
    throw e;
  }
  // The source must live until the target has fetched the data.
  return { stop: () => src.kill('SIGTERM') };
}

before(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`make build\` first`);
  X = await startXvfb();
});

after(() => X?.stop());

test('the window opens where it was left and every screen shows content, not an error', async () => {
  const app = await launch('screens');
  try {
    const g = geometry(app.id);
    assert.deepEqual({ width: g.width, height: g.height }, { width: win.width, height: win.height }, 'the remembered size was not used');
    assert.ok(Math.abs(g.x - win.x) <= 2 && Math.abs(g.y - win.y) <= 40, `the remembered place was not used: ${JSON.stringify(g)}`);
    const hists = new Map();
    for (const [screen, y] of Object.entries(nav)) {
      const since = logLines(app.log);
      click(app.id, 60, y);
      const shown = await waitScreen(app.log, screen, since);
      assert.equal(shown.errors, 0, `the ${screen} screen shows an error box: ${JSON.stringify(shown)}`);
      const file = await stableShot(screen);
      assertShows(file, `the ${screen} screen`);
      // Each screen looks like itself, not like the one before it.
      const h = histogram(file);
      for (const [other, oh] of hists) assert.notEqual(h, oh, `the ${screen} screen looks exactly like the ${other} screen`);
      hists.set(screen, h);
    }
    assert.deepEqual(logErrors(app.log), [], 'rehome logged errors');

    // Resize, close politely: the size is remembered for the next start.
    x('xdotool', ['windowsize', '--sync', app.id, '1100', '760']);
    await until(() => {
      const g2 = geometry(app.id);
      return g2.width === 1100 && g2.height === 760;
    }, 10000, 'the window to take its new size');
    await app.stop();
    const saved = JSON.parse(readFileSync(join(app.home, 'window.json'), 'utf8'));
    assert.equal(saved.width, 1100);
    assert.equal(saved.height, 760);
  } finally {
    await app.stop();
    rmSync(app.home, { recursive: true, force: true });
  }
});

// Where WebKit draws on the CPU (no GPU render node), the window's own
// process (GTK's and WebKit's UI process) holds no OpenGL driver: Mesa's
// libLLVM alone was 20 MiB of it at rest (docs/window.md, "Memory at
// rest"). Its web process, which draws, still loads its drivers (the
// variables that keep them out are put back before it starts), and the
// page it draws shows.
test('the window\'s own process holds no OpenGL driver where WebKit draws on the CPU; its web process does, and draws', async (t) => {
  const nodes = existsSync('/dev/dri') ? readdirSync('/dev/dri').filter((n) => n.startsWith('renderD')) : [];
  if (nodes.length) {
    t.skip(`skipped: a GPU render node is here (${nodes.join(', ')}): the UI process keeps GL by design`);
    return;
  }
  const app = await launch('uigl');
  try {
    const ready = readFileSync(app.log, 'utf8').split('\n').filter((l) => l.includes('"msg":"web view"')).map((l) => JSON.parse(l)).pop();
    assert.equal(ready?.gpu, 'never', `the web view's policy: ${JSON.stringify(ready)}`);
    assert.equal(ready?.ui_gl, 'off', `the log says GL stayed in the UI process: ${JSON.stringify(ready)}`);
    const gl = ['libLLVM', 'swrast_dri', 'libEGL_mesa', 'libGLX_mesa'];
    const held = (pid) => gl.filter((lib) => readFileSync(`/proc/${pid}/maps`, 'utf8').includes(lib));
    const children = (pid) =>
      readdirSync(`/proc/${pid}/task`).flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean));
    const web = children(app.proc.pid).filter((c) => readFileSync(`/proc/${c}/comm`, 'utf8').trim().startsWith('WebKitWebProces'));
    assert.equal(web.length, 1, `one web process under the window (${app.proc.pid}): ${children(app.proc.pid)}`);
    assert.deepEqual(held(app.proc.pid), [], 'the window\'s own process maps an OpenGL driver');
    assert.ok(held(web[0]).includes('libEGL_mesa'), `the web process has no EGL driver (${held(web[0])}): the environment was not put back for it`);
    const since = logLines(app.log);
    click(app.id, 60, nav.settings);
    const shown = await waitScreen(app.log, 'settings', since);
    assert.equal(shown.errors, 0);
    assertShows(await stableShot('uigl-settings'), 'the Settings screen drawn with no GL in the UI process');
    assert.deepEqual(held(app.proc.pid), [], 'an OpenGL driver was loaded into the window\'s process once a screen was drawn');
  } finally {
    await app.stop();
    rmSync(app.home, { recursive: true, force: true });
  }
});

test('a CSV dragged onto the window previews at once and plots; Describe runs on Alt+2', async (t) => {
  const app = await launch('drag');
  const data = mkdtempSync(join(tmpdir(), 'rehome-window-data-'));
  try {
    const since = logLines(app.log);
    click(app.id, 60, nav.code);
    await waitScreen(app.log, 'code', since);
    const csv = writeCSV(data, 'sales 2024.csv');
    const g = geometry(app.id);
    const source = await dragFile(csv, g.x + g.width / 2 + 95, g.y + g.height / 2);
    let dropped;
    try {
      [dropped] = await waitLog(app.log, /"msg":"file dropped"/, 15000, 'the drop to reach rehome');
    } finally {
      source.stop();
    }
    assert.deepEqual(dropped.paths, [csv]);
    const [pv] = await waitLog(app.log, /"event":"preview shown"/, 15000, 'the preview');
    assert.equal(pv.file, 'sales 2024.csv');
    assertShows(await stableShot('code-preview'), 'the preview', { errors: !skipSandbox });
    if (skipSandbox) {
      // Reported as skipped, not passed: the run half was not checked.
      t.skip('REHOME_SKIP_SANDBOX=1: the drop and the preview were checked; running code (quick look, Describe) was not');
      return;
    }
    // The quick look runs by itself on a drop.
    const [plot] = await waitLog(app.log, /"event":"plot shown"/, 180000, 'the first plot');
    assert.ok(plot.width > 0 && plot.height > 0, 'the plot has no size');
    const ms = Date.parse(plot.time) - Date.parse(dropped.time);
    mkdirSync(artifacts, { recursive: true });
    writeFileSync(join(artifacts, 'window-drop-to-plot.txt'), `drop to first plot in the window: ${ms} ms (preview ${pv.since_open_ms} ms after the drop reached the UI)\n`);
    t.diagnostic(`drop to first plot: ${ms} ms`);
    assertShows(await stableShot('code-quicklook'), 'the quick look');

    // Keys go to the focused window. Without a window manager a click does
    // not focus it (and GTK ignores keys sent to a window), so focus it
    // the way a window manager would.
    await focus(app.id);
    x('xdotool', ['key', 'alt+2']);
    const [describe] = await waitLog(app.log, /"event":"run finished".*"analysis":"Describe"|"analysis":"Describe".*"event":"run finished"/, 180000, 'Describe to run');
    assert.equal(describe.outcome, 'ok');
    assertShows(await stableShot('code-describe'), 'the Describe run');
    assert.deepEqual(logErrors(app.log), [], 'rehome logged errors');
  } finally {
    await app.stop();
    rmSync(app.home, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
});

test('"Open with rehome" opens the file, and a second launch hands its file to the open window', async () => {
  const data = mkdtempSync(join(tmpdir(), 'rehome-window-open-'));
  const first = writeCSV(data, 'first.csv', 50);
  const second = writeCSV(data, 'second.csv', 60);
  // The quick look starts on the opened file too; this test is about the
  // hand-over, so it does not wait for (or judge) that run.
  const app = await launch('open', [first]);
  try {
    const [pv] = await waitLog(app.log, /"event":"preview shown".*first\.csv/, 15000, 'the opened file');
    assert.equal(pv.file, 'first.csv');
    const out = execFileSync(bin, [second], { env: { ...X.env, REHOME_HOME: app.home }, timeout: 15000 }).toString();
    assert.match(out, /already open/);
    await waitLog(app.log, /"msg":"second launch"/, 10000, 'the hand-over');
    await waitLog(app.log, /"event":"preview shown".*second\.csv/, 15000, 'the second file');
    assertShows(await stableShot('open-with'), 'the file opened by a second launch', { errors: false });
    assert.equal(app.proc.exitCode, null, 'the first window closed');
  } finally {
    await app.stop();
    rmSync(app.home, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
});

test('a 2 GiB CSV opened in the window shows its head in well under a second', async (t) => {
  const data = mkdtempSync(join(tmpdir(), 'rehome-window-big-'));
  // 2 MiB of real rows, then a sparse tail: a 2 GiB file that costs no disk.
  // The preview reads only the head, so the tail's content does not matter.
  const big = writeCSV(data, 'big.csv', 40000);
  execFileSync('truncate', ['-s', '2G', big]);
  const app = await launch('big', [big]);
  try {
    const [pv] = await waitLog(app.log, /"event":"preview shown".*big\.csv/, 20000, 'the preview of the big file');
    t.diagnostic(`2 GiB preview: ${pv.preview_ms} ms in the UI`);
    assert.ok(pv.preview_ms < 1000, `the preview took ${pv.preview_ms} ms`);
    const [goSide] = await waitLog(app.log, /"msg":"preview".*big\.csv/, 1000, 'the Go side of the preview');
    assert.ok(goSide.read <= 8 << 20, `read ${goSide.read} bytes of a 2 GiB file`);
    assertShows(await stableShot('code-2gib'), 'the 2 GiB preview', { errors: false });
  } finally {
    await app.stop();
    rmSync(app.home, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
});

// Where the Ask screen's fields are, in window coordinates (Ask.svelte at
// the window's size, no model server found yet): the server URL field
// and the question box.
/**
 * Where a field of the screen is, in window coordinates: its centre as
 * the latest "screen shown" event of that screen reports it (App.svelte
 * measures the marked inputs each time the screen settles), so a click
 * lands on the field wherever the layout puts it.
 */
function fieldAt(log, screen, testid) {
  const shown = readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"event":"screen shown"'))
    .map((l) => JSON.parse(l))
    .filter((e) => e.screen === screen && e.fields?.[testid]);
  assert.ok(shown.length, `the ${screen} screen never reported where its ${testid} field is`);
  return shown[shown.length - 1].fields[testid];
}

/** Gives the window the keyboard, as a window manager would on a click. */
async function focus(id) {
  x('xdotool', ['windowfocus', '--sync', id]);
  await until(() => {
    const f = x('xdotool', ['getwindowfocus']).trim();
    return f === id || x('xdotool', ['getwindowname', f]).trim() === 'rehome';
  }, 10000, 'the window to have the focus');
}

/** Clicks a field of the window and types into it, then Return. */
function typeInto(id, [wx, wy], text) {
  click(id, wx, wy);
  x('xdotool', ['type', '--delay', '20', text]);
  x('xdotool', ['key', 'Return']);
}

/**
 * The Ask screen in the window: the model server typed in, sales.csv
 * dragged from a file manager-like window onto it, a question typed; the
 * answer streams in and shows with its plot inline (an <img>, whose size
 * the UI reports once loaded) and the cell's output. Returns the
 * "answer shown" event.
 */
async function askInWindow(name, serverURL, model, question) {
  const app = await launch(name);
  const data = mkdtempSync(join(tmpdir(), 'rehome-window-ask-'));
  try {
    const since = logLines(app.log);
    click(app.id, 60, nav.ask);
    await waitScreen(app.log, 'ask', since);
    await focus(app.id);
    typeInto(app.id, fieldAt(app.log, 'ask', 'ask-server-url'), serverURL);
    const [choice] = await waitLog(app.log, /"event":"screen shown".*ask-model/, 30000, 'the models of the typed server');
    assert.equal(choice.errors, 0, `the Ask screen shows an error: ${JSON.stringify(choice)}`);

    const csv = join(data, 'sales.csv');
    writeFileSync(csv, readFileSync(join(testdata, 'sales.csv')));
    const g = geometry(app.id);
    const source = await dragFile(csv, g.x + g.width / 2, g.y + g.height / 2);
    try {
      const [dropped] = await waitLog(app.log, /"msg":"file dropped"/, 15000, 'the drop to reach rehome');
      assert.deepEqual(dropped.paths, [csv]);
      const [files] = await waitLog(app.log, /"event":"ask files"/, 15000, 'the dropped file on the Ask screen');
      assert.equal(files.files, 'sales.csv');
    } finally {
      source.stop();
    }

    await focus(app.id);
    typeInto(app.id, fieldAt(app.log, 'ask', 'ask-input'), question);
    await waitLog(app.log, /"event":"answer streaming"/, 120000, 'the answer to start streaming');
    const [plot] = await waitLog(app.log, /"event":"plot shown".*"screen":"ask"|"screen":"ask".*"event":"plot shown"/, 240000, 'the plot inline');
    assert.ok(plot.width > 100 && plot.height > 100, `the plot has no size: ${JSON.stringify(plot)}`);
    const [answer] = await waitLog(app.log, /"event":"answer shown"/, 240000, 'the answer');
    assert.equal(answer.model, model, 'the model asked');
    assertShows(await stableShot(`ask-${name}`), `the answer (${name})`);
    assert.deepEqual(logErrors(app.log), [], 'rehome logged errors');
    return answer;
  } finally {
    await app.stop();
    rmSync(app.home, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
}

test('Ask in the window: a dropped CSV and a typed question come back answered with the plot inline (recorded Ollama)', async (t) => {
  if (skipSandbox) return t.skip('REHOME_SKIP_SANDBOX=1: the answer needs the sandbox to run its cell');
  const ollama = await recordedOllama('ollama-tools');
  try {
    const a = await askInWindow('recorded', `http://127.0.0.1:${ollama.address().port}/v1`, 'qwen2.5:7b', 'Which region had the most revenue?');
    assert.match(a.answer, /^South had the most revenue: 230\.0\./);
    assert.match(a.cell, /ran, 1 plot/);
    assert.match(a.output, /South\s+230\.0/);
    assert.equal(a.plots, 1);
  } finally {
    ollama.close();
  }
});

test('Ask in the window: a dropped CSV and a typed question come back answered with the plot inline (real llama-server)', async (t) => {
  if (skipSandbox) return t.skip('REHOME_SKIP_SANDBOX=1: the answer needs the sandbox to run its cell');
  const llama = await startLlama();
  if (llama.skip) return t.skip(llama.skip);
  try {
    const a = await askInWindow('llama', llama.url, llama.model, 'Which region had the most revenue?');
    assert.match(a.answer, /The summary of sales\.csv is above: .* summed by region\./);
    assert.match(a.cell, /ran, 1 plot/);
    assert.match(a.output, /revenue/);
    assert.equal(a.plots, 1);
  } finally {
    llama.stop();
  }
});

/** Waits until the log holds n lines matching re; returns the nth. */
async function waitNth(log, re, n, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const hits = await waitLog(log, re, Math.max(0, end - Date.now()), what);
    if (hits.length >= n) return hits[n - 1];
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} (${hits.length} of ${n})`);
    await sleep(100);
  }
}

/**
 * A screenshot of the window with a dialog painted over it: shots until
 * the page behind shows dimmed (the overlay's 45% black over the page
 * background: about 135,136,137) on most of the window, up to 15 s (the
 * web view paints a moment after the UI reports the dialog).
 */
async function dialogShot(name) {
  const end = Date.now() + 15000;
  for (;;) {
    const file = shot(name);
    let dim = 0;
    for (const line of histogram(file).split('\n')) {
      const m = /^\s*(\d+):\s*\(\s*(\d+),\s*(\d+),\s*(\d+)/.exec(line);
      if (m && [m[2], m[3], m[4]].every((v, i) => Math.abs(Number(v) - [135, 136, 137][i]) <= 3)) dim += Number(m[1]);
    }
    if (dim > (win.width * win.height) / 3) return file;
    if (Date.now() > end) throw new Error(`the dialog was reported but never painted (${dim} dimmed pixels): ${file}`);
    await sleep(200);
  }
}

/**
 * The confirmation dialog of an action call, in the real window: an
 * assistant whose action is a real API on 127.0.0.1 (added with the CLI
 * before the window opens, with a Bearer key), asked in the window of a
 * recorded model — the real llama-server's wires: action-tools calls
 * getOrder, then the consequential placeOrder; action-note calls
 * noteOrder, whose rule offers "Always allow". The dialog names the
 * operation, the host and the arguments; Deny: the API gets no call and
 * the answer's action says declined; Allow once: exactly one call;
 * Always allow: made, and the next call is made with no dialog.
 */
test('an action call in the window waits for its dialog: Deny, Allow once, Always allow', async (t) => {
  if (skipSandbox) return t.skip('REHOME_SKIP_SANDBOX=1: an ask starts the sandbox\'s engine (Podman), even with no cell to run');
  const key = 'sk-window-canary-5e21c0';
  const hits = [];
  const shop = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.headers.authorization !== `Bearer ${key}`) return res.writeHead(401).end('{"error":"no key"}');
    res.setHeader('Content-Type', 'application/json');
    if (req.method === 'POST') return res.writeHead(201).end('{"id": "o-43", "total": 3}');
    if (req.method === 'PUT') return res.end('{"noted": true}');
    res.end(JSON.stringify({ id: req.url.split('/').pop(), total: 12.5 }));
  });
  await new Promise((ok) => shop.listen(0, '127.0.0.1', ok));
  const apiURL = `http://127.0.0.1:${shop.address().port}`;
  const model = await recordedOllama('action-tools', 'action-tools', 'action-note', 'action-note');
  const app = await launch('action', [], (home) => {
    const env = { ...process.env, REHOME_HOME: home };
    const a = JSON.parse(execFileSync(bin, ['assistants', 'add', '--json', '--name', 'Shop'], { env }).toString());
    const schema = join(home, 'shop.yaml');
    writeFileSync(schema, readFileSync(join(repo, 'backend/actions/testdata/shop.yaml'), 'utf8').replaceAll('SERVER', apiURL));
    execFileSync(bin, ['actions', 'add', a.id, schema, '--auth', 'bearer', '--key-stdin', '--allow-local'], { env, input: key + '\n' });
  });
  const count = (m) => hits.filter((h) => h.startsWith(m + ' ')).length;
  const confirmRe = /"event":"action confirm shown"/;
  const answerRe = /"event":"answer shown"/;
  try {
    let since = logLines(app.log);
    click(app.id, 60, nav.ask);
    await waitScreen(app.log, 'ask', since);
    await focus(app.id);
    typeInto(app.id, fieldAt(app.log, 'ask', 'ask-server-url'), `http://127.0.0.1:${model.address().port}/v1`);
    await waitLog(app.log, /"event":"screen shown".*ask-model/, 30000, 'the models of the typed server');
    // The assistant, from its menu (opened by a click, chosen by keys).
    await stableShot('action-ask');
    click(app.id, ...fieldAt(app.log, 'ask', 'ask-assistant'));
    await sleep(500);
    x('xdotool', ['key', 'Down']);
    x('xdotool', ['key', 'Return']);
    await waitNth(app.log, /"event":"screen shown".*ask-make-default/, 1, 15000, 'the assistant chosen (its Make default button)');
    // Under load the menu can map after the keys chose (Down on the
    // focused select chooses too) and stay open, taking the next click:
    // Escape closes it (with nothing running, Ask does nothing on Escape).
    await sleep(800);
    x('xdotool', ['key', 'Escape']);
    assertShows(await stableShot('action-assistant'), 'the Ask screen with the assistant');

    // Deny: the POST is not made, the answer's action says declined.
    typeInto(app.id, fieldAt(app.log, 'ask', 'ask-input'), 'What does o-42 total? Then order one A1.');
    const c1 = await waitNth(app.log, confirmRe, 1, 60000, 'the confirmation dialog');
    assert.equal(c1.operation, 'placeOrder');
    assert.equal(c1.host, apiURL.replace('http://', ''));
    assert.match(c1.arguments, /"sku": ?"A1"/);
    assert.equal(c1.always, undefined, 'Always allow offered for a consequential call');
    assertShows(await dialogShot('action-confirm'), 'the confirmation dialog');
    assert.equal(count('GET'), 1, 'the GET was not made before the dialog');
    click(app.id, ...c1.deny);
    const a1 = await waitNth(app.log, answerRe, 1, 60000, 'the answer after Deny');
    assert.equal(count('POST'), 0, `a denied POST was made: ${hits}`);
    assert.match(a1.actions.at(-2), /^Action · getOrder · HTTP 200/);
    assert.match(a1.actions.at(-1), /^Action · placeOrder · .*declined/);
    assertShows(await stableShot('action-denied'), 'the answer after Deny');

    // Allow once: exactly one call.
    typeInto(app.id, fieldAt(app.log, 'ask', 'ask-input'), 'Order one A1 after all.');
    const c2 = await waitNth(app.log, confirmRe, 2, 60000, 'the second dialog');
    assert.equal(c2.operation, 'placeOrder');
    click(app.id, ...c2.allow);
    const a2 = await waitNth(app.log, answerRe, 2, 60000, 'the answer after Allow once');
    assert.equal(count('POST'), 1, `Allow once made ${count('POST')} calls`);
    assert.match(a2.actions.at(-1), /^Action · placeOrder · HTTP 201/);

    // Always allow (noteOrder's rule offers it): made, and not asked again.
    typeInto(app.id, fieldAt(app.log, 'ask', 'ask-input'), 'Note on o-42: leave it at the door.');
    const c3 = await waitNth(app.log, confirmRe, 3, 60000, 'the dialog for noteOrder');
    assert.equal(c3.operation, 'noteOrder');
    assert.ok(c3.always, 'Always allow not offered where the rule allows it');
    assertShows(await dialogShot('action-always'), 'the dialog with Always allow');
    click(app.id, ...c3.always);
    await waitNth(app.log, answerRe, 3, 60000, 'the answer after Always allow');
    assert.equal(count('PUT'), 1);
    typeInto(app.id, fieldAt(app.log, 'ask', 'ask-input'), 'And note it again.');
    const a4 = await waitNth(app.log, answerRe, 4, 60000, 'the answer with no dialog');
    assert.equal(count('PUT'), 2, 'the always-allowed call was not made');
    assert.equal((await waitLog(app.log, confirmRe, 1000, 'dialogs')).length, 3, 'a second dialog for an always-allowed operation');
    assert.match(a4.actions.at(-1), /^Action · noteOrder · HTTP 200/);
    assertShows(await stableShot('action-done'), 'the answers');
    assert.ok(!readFileSync(app.log, 'utf8').includes(key), 'the key is in the log');
    assert.deepEqual(logErrors(app.log), [], 'rehome logged errors');
  } finally {
    await app.stop();
    rmSync(app.home, { recursive: true, force: true });
    model.close();
    shop.close();
  }
});

/** A PATH that has every command of this machine but the optional desktop tools. */
function pathWithoutDesktopTools(dir) {
  const skip = new Set(['update-desktop-database', 'update-mime-database', 'gtk-update-icon-cache', 'convert']);
  mkdirSync(dir, { recursive: true });
  const made = new Set();
  for (const d of ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
    if (!existsSync(d)) continue;
    for (const name of readdirSync(d)) {
      if (skip.has(name) || made.has(name)) continue;
      made.add(name);
      symlinkSync(join(d, name), join(dir, name));
    }
  }
  return dir;
}

for (const tools of ['with the desktop tools', 'without optional tools']) {
  test(`the desktop entry offers "Open with rehome" for CSV, Excel, JSON and Parquet (${tools})`, () => {
    const h = mkdtempSync(join(tmpdir(), 'rehome-desktop-'));
    try {
      const env = { ...process.env, HOME: h, XDG_DATA_HOME: join(h, 'share') };
      if (tools === 'without optional tools') env.PATH = pathWithoutDesktopTools(join(h, 'bin'));
      else
        for (const tool of ['update-desktop-database', 'update-mime-database'])
          assert.ok(
            process.env.PATH.split(':').some((d) => existsSync(join(d, tool))),
            `${tool} is missing: build/setup.sh installs it (desktop-file-utils, shared-mime-info)`,
          );
      execFileSync('bash', [join(repo, 'build/linux/install.sh')], { env });
      const py = `
import gi; gi.require_version("Gio", "2.0")
from gi.repository import Gio
for t in ["text/csv", "text/tab-separated-values", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/json", "application/vnd.apache.parquet"]:
    print(t, " ".join(a.get_id() for a in Gio.AppInfo.get_all_for_type(t)))
`;
      const out = execFileSync(python, ['-c', py], {
        env: { ...process.env, XDG_DATA_HOME: join(h, 'share'), XDG_DATA_DIRS: `${join(h, 'share')}:/usr/share` },
      }).toString();
      for (const line of out.trim().split('\n')) assert.match(line, /rehome\.desktop/, line);
      assert.ok(existsSync(join(h, 'share/icons/hicolor/512x512/apps/rehome.png')), 'no icon installed');
    } finally {
      rmSync(h, { recursive: true, force: true });
    }
  });
}

// A file dragged from a file manager onto the assistant editor, whose
// Knowledge section takes the window's drops, in the real window: the drop reaches rehome with the
// file's path, the section indexes it (no upload: the window hands over
// paths) and lists it; the assistant's knowledge has it afterwards.
test('a file dropped on the Knowledge section of the assistant editor is indexed and listed', async () => {
  const data = mkdtempSync(join(tmpdir(), 'rehome-window-knowledge-'));
  let id;
  const app = await launch('knowledge', [], (home) => {
    const env = { ...process.env, REHOME_HOME: home };
    id = JSON.parse(execFileSync(bin, ['assistants', 'add', '--json', '--name', 'Kettle Helper'], { env }).toString()).id;
  });
  try {
    const guide = join(data, 'kettle guide.md');
    writeFileSync(guide, '# Kettle care\n\n## Descaling\n\nDescale the kettle every four weeks with citric acid.\n');
    await until(() => {
      try {
        return fieldAt(app.log, 'assistants', 'assistant-row');
      } catch {
        return undefined;
      }
    }, 15000, 'the assistant listed');
    click(app.id, ...fieldAt(app.log, 'assistants', 'assistant-row'));
    await waitLog(app.log, /"event":"screen shown".*knowledge-drop/, 15000, 'the editor with its Knowledge section');
    // The section claims the window's drops while it shows (it may sit
    // below the fold of the editor): a drop on the editor is its.
    const g = geometry(app.id);
    const source = await dragFile(guide, g.x + g.width / 2 + 95, g.y + g.height / 2);
    try {
      const [dropped] = await waitLog(app.log, /"msg":"file dropped"/, 15000, 'the drop to reach rehome');
      assert.deepEqual(dropped.paths, [guide]);
    } finally {
      source.stop();
    }
    const [listed] = await waitLog(app.log, /"event":"knowledge listed"/, 60000, 'the file listed in the Knowledge section');
    assert.equal(listed.files, 'kettle guide.md: indexed');
    assertShows(await stableShot('knowledge-drop'), 'the Knowledge section with the dropped file');
    assert.deepEqual(logErrors(app.log), [], 'rehome logged errors');
  } finally {
    await app.stop();
  }
  try {
    const env = { ...process.env, REHOME_HOME: app.home };
    const files = JSON.parse(execFileSync(bin, ['knowledge', 'list', id, '--json'], { env }).toString());
    assert.deepEqual(files.map((f) => [f.name, f.state]), [['kettle guide.md', 'indexed']]);
    assert.deepEqual(existsSync(join(app.home, 'uploads')) ? readdirSync(join(app.home, 'uploads')) : [], [], 'the window uploaded the dropped file');
  } finally {
    rmSync(app.home, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
});

// ChatGPT's data export dropped on the window's Ask screen is imported (not
// attached to the question): the drop reaches rehome with its path, the
// conversation list's import takes it, and the terminal lists the
// conversations afterwards. The export is real (backend/chatgptexport/testdata).
test('ChatGPT’s conversations.json dropped on the Ask screen is imported and listed', async () => {
  const data = mkdtempSync(join(tmpdir(), 'rehome-window-convimport-'));
  const app = await launch('conversations-import');
  try {
    const since = logLines(app.log);
    click(app.id, 60, nav.ask);
    await waitScreen(app.log, 'ask', since);
    const file = join(data, 'conversations.json');
    writeFileSync(file, readFileSync(join(testdata, '../../chatgptexport/testdata/gpt-2025.json')));
    const g = geometry(app.id);
    const source = await dragFile(file, g.x + g.width / 2, g.y + g.height / 2);
    try {
      const [dropped] = await waitLog(app.log, /"msg":"file dropped"/, 15000, 'the drop to reach rehome');
      assert.deepEqual(dropped.paths, [file]);
    } finally {
      source.stop();
    }
    const [done] = await waitLog(app.log, /"event":"conversations imported"/, 60000, 'the import to end');
    assert.equal(done.imported, 4, JSON.stringify(done));
    assertShows(await stableShot('conversations-import'), 'the conversation list with the import report');
    assert.deepEqual(logErrors(app.log), [], 'rehome logged errors');
  } finally {
    await app.stop();
  }
  try {
    const env = { ...process.env, REHOME_HOME: app.home };
    const list = JSON.parse(execFileSync(bin, ['conversations', 'list', '--json'], { env }).toString());
    assert.equal(list.length, 4);
    assert.ok(list.some((c) => c.gizmo_id === 'g-67ee11f7587881919c3ba1c99a9d6b39'));
  } finally {
    rmSync(app.home, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
});

// A browsing answer's citation chip in the real window: a real ZIM (the
// json page with a hostile part, e2e/zimfixture.mjs) carried with
// `rehome library add`, a question asked with `rehome ask --browse` through
// the real loop (the model's side replayed from the real llama-server's
// wire, backend/llm/testdata/browse-tools; open_url read in the real
// sandbox), then in the window: the conversation opened, the chip [1]
// clicked, Open the article clicked; the reader reports the article's text,
// nothing of it that runs or loads, and the loopback server the page points
// at was reached by nothing.
test('a zim:// citation chip in the window opens the article in rehome\'s reader, nothing of it run or loaded', async (t) => {
  if (skipSandbox) return t.skip('REHOME_SKIP_SANDBOX=1: open_url reads the article in the sandbox');
  const tracker = await countingServer();
  const { zim, work } = hostileZim(`http://127.0.0.1:${tracker.address().port}`);
  const model = await recordedOllama('browse-tools');
  let app;
  try {
    app = await launch('zimreader', [], async (home) => {
      const env = { ...process.env, REHOME_HOME: home };
      execFileSync(bin, ['library', 'add', zim, '--name', 'py'], { env, stdio: 'pipe' });
      const url = `http://127.0.0.1:${model.address().port}/v1`;
      const ask = spawn(bin, ['ask', '--browse', '--server', url, '--model', 'qwen2.5:7b', 'How do I decode JSON in Python?'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      ask.stdout.on('data', (d) => (out += d));
      ask.stderr.on('data', (d) => (out += d));
      const code = await new Promise((r) => ask.once('exit', r));
      assert.equal(code, 0, `rehome ask --browse: ${out}`);
      assert.match(out, /zim:\/\/py\/library\/json\.html/);
    });
    const since = logLines(app.log);
    click(app.id, 60, nav.ask);
    await waitScreen(app.log, 'ask', since);
    const at = (testid, what) =>
      until(() => {
        try {
          return fieldAt(app.log, 'ask', testid);
        } catch {
          return undefined;
        }
      }, 20000, what);
    click(app.id, ...(await at('ask-open-conversation', 'the conversation listed')));
    click(app.id, ...(await at('cite-1', 'the answer with its chip [1]')));
    click(app.id, ...(await at('cite-open-zim', "the chip's source with Open the article")));
    const [shown] = await waitLog(app.log, /"event":"article shown"/, 60000, 'the article in the reader');
    assert.equal(shown.address, 'zim://py/library/json.html');
    assert.equal(shown.error, '');
    assert.match(shown.title, /json — JSON encoder and decoder/);
    assert.match(shown.text, /JSON encoder and decoder[\s\S]*\[image: a tracking pixel\][\s\S]*See the csv module and a page on the web\./);
    assert.equal(shown.loaded, 0, 'nothing in the article loads');
    assert.ok(shown.links > 0, 'the links to other pages of the library kept');
    assertShows(await stableShot('zim-reader'), 'the article in the reader');
    assert.deepEqual(tracker.reached, [], 'nothing reached the loopback server the article points at');
    assert.deepEqual(logErrors(app.log), [], 'rehome logged errors');
  } finally {
    await app?.stop();
    if (app) rmSync(app.home, { recursive: true, force: true });
    model.close();
    tracker.close();
    rmSync(work, { recursive: true, force: true });
  }
});
