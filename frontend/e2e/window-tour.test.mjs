// The real window (the built binary on Xvfb) at the two sizes the issue
// names, 1280×800 and 900×620: every screen photographed (build/test-artifacts
// or $TOUR_DIR, named $TOUR_NAME-WxH-SCREEN.png), and the window's own
// state kept per data folder — a dark theme chosen in one folder's window
// does not reach another folder's window (WebKitGTK keeps one storage for
// every window; rehome keys its state by the folder).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { bin, artifacts } from './harness.mjs';
import { startXvfb, launch, waitScreen, waitLog, logLines, click, wheel, windowShot, pixel, sleep } from './xwin.mjs';

const nav = { hardware: 80, assistants: 120, audit: 160, code: 200, ask: 240, settings: 280 };
// What each screen shows once settled (its markers; Hardware: the machine's figures).
const markers = {
  hardware: ['machine', 'ram-total'],
  assistants: ['new-assistant'],
  audit: ['audit-mode-assistants'],
  code: ['code-screen'],
  ask: ['ask-input'],
  settings: ['sandbox-settings'],
};
const dir = process.env.TOUR_DIR ? resolve(process.env.TOUR_DIR) : artifacts;
const name = process.env.TOUR_NAME ?? 'window-tour';
let X;

before(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`make build\` first`);
  X = await startXvfb();
});
after(() => X?.stop());

async function show(app, screen) {
  const since = logLines(app.log);
  click(X, app.id, 60, nav[screen]);
  return waitScreen(app.log, screen, markers[screen], since);
}

for (const size of [{ width: 1280, height: 800 }, { width: 900, height: 620 }]) {
  test(`every screen at ${size.width}×${size.height}, photographed`, async () => {
    const app = await launch(X, `tour-${size.width}`, { size });
    try {
      for (const screen of Object.keys(nav)) {
        const shown = await show(app, screen);
        assert.equal(shown.errors, 0, `the ${screen} screen shows an error box`);
        await windowShot(X, app.id, `${name}-${size.width}x${size.height}-${screen}`, dir);
      }
    } finally {
      await app.stop();
      rmSync(app.home, { recursive: true, force: true });
    }
  });
}

// The page's background where no card is: Settings, right of its cards.
const background = (file) => pixel(file, 1200, 760);
const dark = ([r, g, b]) => r + g + b < 3 * 90;

/**
 * Turns the wheel, a notch at a time and toward it, until the marked field
 * rests inside the window (the UI reports every field's place, off screen
 * too, once a scroll rests): a long screen under load scrolls on after the
 * wheel stops, so a click at a place reported mid-scroll misses.
 */
async function wheelIntoView(app, screen, marker) {
  for (let i = 0; i < 80; i++) {
    const y = (await waitScreen(app.log, screen, [marker])).fields[marker][1];
    if (y > 80 && y < 700) {
      await sleep(1000);
      const rest = await waitScreen(app.log, screen, [marker]);
      if (rest.fields[marker][1] === y) return rest;
      continue;
    }
    wheel(X, app.id, 700, 400, y <= 80 ? -1 : 1);
    await sleep(400);
  }
  throw new Error(`${marker} never came to rest in view`);
}

test("one data folder's theme does not reach another folder's window", async () => {
  const a = await launch(X, 'theme-a');
  let b;
  try {
    await show(a, 'settings');
    // The Appearance card sits below the fold: the wheel brings it up.
    const shown = await wheelIntoView(a, 'settings', 'theme-dark');
    click(X, a.id, ...shown.fields['theme-dark']);
    // The shot is taken once two agree: the theme has applied by then.
    let shotA;
    for (let i = 0; i < 50; i++) {
      shotA = await windowShot(X, a.id, 'window-theme-folder-a');
      if (dark(background(shotA))) break;
    }
    assert.ok(dark(background(shotA)), `folder A did not turn dark: ${background(shotA)} (${shotA})`);
    await a.stop();

    b = await launch(X, 'theme-b');
    await show(b, 'settings');
    const shotB = await windowShot(X, b.id, 'window-theme-folder-b');
    assert.ok(!dark(background(shotB)), `a fresh folder's window came up dark, with folder A's theme: ${background(shotB)} (${shotB})`);
    await b.stop();

    // Folder A keeps its own choice, and opens on the screen it was closed on.
    const a2 = await launch(X, 'theme-a', { home: a.home });
    try {
      const [ready] = (await waitLog(a2.log, /"ui ready"/, 5000, 'ui ready', a2.since));
      assert.equal(ready.screen, 'settings', 'the window did not reopen on its last screen');
      await show(a2, 'settings');
      const shotA2 = await windowShot(X, a2.id, 'window-theme-folder-a-again');
      assert.ok(dark(background(shotA2)), `folder A forgot its dark theme: ${background(shotA2)}`);
    } finally {
      await a2.stop();
    }
  } finally {
    await a.stop();
    await b?.stop();
    rmSync(a.home, { recursive: true, force: true });
    if (b) rmSync(b.home, { recursive: true, force: true });
  }
});

/** The id of the visible window whose name matches re, once there is one. */
async function waitWindow(X, re, timeoutMs) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const id = X.x('xdotool', ['search', '--onlyvisible', '--name', re]).trim().split('\n')[0];
      if (id) return id;
    } catch {
      // xdotool exits 1 when no window matches yet
    }
    if (Date.now() > end) throw new Error(`no window named ${re} appeared in ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

// The newcomer's path in the window, timed step by step: a fresh data
// folder, a GGUF carried to the machine (the tests' tiny model), and
// nothing else — the Start card's Add a model file… (the GTK file dialog,
// the path typed), New assistant (a name, Save), then Ask (a question
// typed, Enter). The llama-server is the one `make llama` left in the
// cache (no REHOME_LLAMA_SERVER), as `make run` from a clone has it.
test('the newcomer path: a carried model, a new assistant, a question — timed', async (t) => {
  const { execFileSync } = await import('node:child_process');
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { root } = await import('./harness.mjs');
  const scratch = mkdtempSync(join(tmpdir(), 'rehome-newcomer-'));
  const model = join(scratch, 'tiny.gguf');
  let llama = process.env.REHOME_LLAMA_SERVER;
  try {
    llama ||= execFileSync('bash', [join(root, 'build/llm/llama-server.sh'), '--find'], { encoding: 'utf8' }).trim();
  } catch {
    if (process.env.REHOME_REQUIRE_LLAMA) throw new Error('REHOME_REQUIRE_LLAMA is set but there is no llama-server: `make llama`');
    t.skip('skipped: no llama-server (`make llama` builds it)');
    return;
  }
  // The tiny model is made from the vocabulary beside the llama-server build.
  execFileSync('go', ['run', './internal/testsupport/tinymodel/cmd/tinymodel', '-o', model, '-csv', 'sales.csv', '-group', 'region', '-value', 'revenue'], { cwd: root, stdio: 'inherit', env: { ...process.env, REHOME_LLAMA_SERVER: llama } });
  const t0 = Date.now();
  const steps = [];
  const mark = (what) => steps.push(`${what}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  // No REHOME_LLAMA_SERVER: rehome finds the build in the cache itself.
  const app = await launch(X, 'newcomer', { env: { REHOME_LLAMA_SERVER: '', REHOME_LLAMA_DIR: '' } });
  try {
    mark('window ready');
    let shown = await waitScreen(app.log, 'assistants', ['start-add-model']);
    mark('Start here shown');
    click(X, app.id, ...shown.fields['start-add-model']);
    // GTK's file chooser: its keys once it is mapped and focused (under
    // load that takes more than a second or two).
    const chooser = await waitWindow(X, '^Choose the model file you carried', 30000);
    X.x('xdotool', ['windowfocus', '--sync', chooser]); // no window manager here: focus, not activate
    await sleep(300);
    X.x('xdotool', ['key', '--clearmodifiers', 'ctrl+l']);
    X.x('xdotool', ['type', '--delay', '10', model]);
    X.x('xdotool', ['key', 'Return']);
    await waitLog(app.log, /"event":"start step".*"step":"model"/, 60000, 'the model added', app.since);
    mark('1 model added');
    let since = logLines(app.log);
    shown = await waitScreen(app.log, 'assistants', ['start-new'], app.since);
    click(X, app.id, ...shown.fields['start-new']);
    shown = await waitScreen(app.log, 'assistants', ['field-name', 'save-assistant'], since);
    click(X, app.id, ...shown.fields['field-name']);
    X.x('xdotool', ['type', '--delay', '10', 'Sales Analyst']);
    // The form is taller than the window (the capabilities): Save is below
    // the fold, and Enter in the name saves, as in any form.
    X.x('xdotool', ['key', 'Return']);
    await waitScreen(app.log, 'assistants', ['assistant-row'], since);
    mark('2 assistant saved');
    since = logLines(app.log);
    click(X, app.id, 60, nav.ask);
    shown = await waitScreen(app.log, 'ask', ['ask-input', 'ask-model'], since);
    click(X, app.id, ...shown.fields['ask-input']);
    X.x('xdotool', ['type', '--delay', '10', 'Which region had the most revenue?']);
    X.x('xdotool', ['key', 'Return']);
    await waitLog(app.log, /"event":"answer streaming"/, 240000, 'the answer streaming', since);
    mark('3 answer streaming');
    const [ans] = await waitLog(app.log, /"event":"answer shown"|"event":"screen shown".*"errors":[1-9]/, 240000, 'the answer shown', since);
    mark(ans.event === 'answer shown' ? '3 answer shown' : '3 an error shown');
    await windowShot(X, app.id, 'window-newcomer-answer');
    t.diagnostic(`newcomer path: ${steps.join(' · ')}; answer: ${JSON.stringify(ans.answer ?? '')}`);
    console.log(`newcomer path: ${steps.join(' · ')}`);
  } finally {
    await app.stop();
    rmSync(app.home, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
});
