// The GPT import panel in the real window (the built binary on Xvfb):
// Assistants → Import a GPT; "Or load a .json file…" opens WebKitGTK's
// chooser for the page's file input and a real ChatGPT GPT record
// (backend/assistant/testdata/gpts/prompt_maker_file.json) is loaded from
// it; "choose them" opens Go's dialog for the knowledge files, in
// ~/Documents the first time, where Ctrl+A and Enter take two real Debian
// documents (a PDF and an HTML page); both show in the panel, Import
// stores the GPT, and the CLI, on the same data folder once the window is
// closed, shows both as its knowledge, byte for byte. Screenshots: $ARTIFACTS/window-import-chosen.png,
// window-import-done.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, root, artifacts } from './harness.mjs';
import { startXvfb, launch, waitScreen, waitLog, logLines, logText, click, wheel, windowShot, sleep } from './xwin.mjs';

const pdf = '/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf';
const html = '/usr/share/doc/python3.11/html/bugs.html';
const record = join(root, 'backend/assistant/testdata/gpts/prompt_maker_file.json');
const cli = join(root, 'build/bin/rehome');

const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

let X;
before(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`make build\` first`);
  for (const f of [pdf, html, cli]) if (!existsSync(f)) throw new Error(`${f} is missing (make build; apt-get install shared-mime-info python3.11-doc)`);
  X = await startXvfb();
});
after(() => X?.stop());

// The wheel turns over the screen's left margin, left of its cards: over
// the JSON field it would scroll that instead.
const margin = [200, 400];

/** A visible window other than `not` whose name matches re. */
async function waitWindow(re, timeoutMs, not) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const id = X.x('xdotool', ['search', '--onlyvisible', '--name', re]).trim().split('\n').find((w) => w && w !== not);
      if (id) return id;
    } catch {
      // none yet
    }
    if (Date.now() > end) throw new Error(`no window named ${re} appeared in ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

function visible(id) {
  try {
    return X.x('xdotool', ['search', '--onlyvisible', '--name', '.']).split('\n').includes(id);
  } catch {
    return false;
  }
}

/**
 * The screen's report with fields after line since. The screen reports
 * its changes for 30 s after it opens and each scroll after that: when
 * none comes, a notch of the wheel (down, else up) asks again. Its
 * markers are cut at 256 characters, which this screen passes: what
 * shows below is read from where its fields are.
 */
async function report(app, fields, since, timeoutMs = 5000, ok = () => true) {
  for (const n of [0, 1, -1, 1, -1]) {
    if (n) wheel(X, app.id, ...margin, n);
    const got = await until(app, fields, since, n ? 3000 : timeoutMs, ok);
    if (got) return got;
  }
  throw new Error(`the assistants screen never reported ${fields.join(', ')} as expected:\n${logText(app.log).slice(-3000)}`);
}

async function until(app, fields, since, timeoutMs, ok) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const hit = await waitScreen(app.log, 'assistants', fields, since, Math.max(1, end - Date.now())).catch(() => undefined);
    if (hit && ok(hit)) return hit;
    if (Date.now() > end) return undefined;
    since = logLines(app.log) - 1; // the next report on
    await sleep(200);
  }
}

/** How far below field a is field b, in a report (the same however the screen is scrolled). */
const gap = (shown, a, b) => shown.fields[b][1] - shown.fields[a][1];

/** A fresh report, scrolled until field is in view (the window is 800 high); the latest once the layout rests. */
async function reach(app, field) {
  let shown = await report(app, [field], logLines(app.log) - 1, 1000);
  for (let i = 0; i < 12 && shown.fields[field][1] > 740; i++) {
    const at = logLines(app.log);
    wheel(X, app.id, ...margin, 3);
    await sleep(400);
    shown = await waitScreen(app.log, 'assistants', [field], at).catch(() => shown);
  }
  await sleep(600);
  return waitScreen(app.log, 'assistants', [field], 0);
}

/** Clicks field until a dialog named re opens (a click made while the layout moved is made again). */
async function openDialog(app, field, re) {
  for (let i = 0; i < 3; i++) {
    const shown = await reach(app, field);
    click(X, app.id, ...shown.fields[field]);
    const d = await waitWindow(re, 10000, app.id).catch(() => undefined);
    if (d) {
      X.x('xdotool', ['windowfocus', '--sync', d]);
      await sleep(800);
      return d;
    }
  }
  throw new Error(`${field} opened no dialog named ${re}`);
}

test('the window: a GPT record from a file and two knowledge files from Go’s dialog, imported together', async () => {
  const home = mkdtempSync(join(tmpdir(), 'rehome-import-home-'));
  const docs = join(home, 'Documents');
  mkdirSync(docs);
  copyFileSync(pdf, join(docs, 'shared-mime-info-spec.pdf'));
  copyFileSync(html, join(docs, 'bugs.html'));
  const t0 = Date.now();
  const app = await launch(X, 'import', { env: { HOME: home } });
  try {
    await steps(app, home, t0);
  } catch (e) {
    // The whole screen as it was (a dialog left open shows).
    mkdirSync(artifacts, { recursive: true });
    X.x('import', ['-window', 'root', join(artifacts, 'window-import-failed.png')]);
    throw e;
  } finally {
    await app.stop();
    rmSync(app.home, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
});

async function steps(app, home, t0) {
  {
    let since = logLines(app.log);
    click(X, app.id, 60, 120); // Assistants
    let shown = await waitScreen(app.log, 'assistants', ['import-toggle'], since);
    since = logLines(app.log);
    click(X, app.id, ...shown.fields['import-toggle']);
    await waitScreen(app.log, 'assistants', ['import-panel', 'import-json-choose', 'import-choose'], since);

    // The record: WebKitGTK's chooser for the page's file input, the path typed.
    since = logLines(app.log);
    const chooser = await openDialog(app, 'import-json-choose', '.');
    X.x('xdotool', ['key', '--clearmodifiers', 'ctrl+l']);
    X.x('xdotool', ['type', '--delay', '10', record]);
    await sleep(500);
    // The location's completion can take the first Return: pressed until the dialog is gone.
    for (let i = 0; i < 4 && visible(chooser); i++) {
      X.x('xdotool', ['key', 'Return']);
      await sleep(700);
    }
    assert.ok(!visible(chooser), 'the record dialog closed');
    // Loaded (a textarea's value is no change the screen reports): its
    // preview lists the one GPT.
    await sleep(1000);
    since = logLines(app.log);
    shown = await reach(app, 'gpt-preview-button');
    const before = gap(shown, 'gpt-preview-button', 'import-choose');
    since = logLines(app.log);
    click(X, app.id, ...shown.fields['gpt-preview-button']);
    // The preview's lines push the knowledge drop area down.
    await report(app, ['gpt-preview-button', 'import-choose'], since, 15000, (r) => gap(r, 'gpt-preview-button', 'import-choose') > before + 40);

    // The knowledge files: Go's dialog, in ~/Documents; both taken.
    shown = await reach(app, 'import-choose');
    const listBefore = gap(shown, 'import-choose', 'import-button');
    since = logLines(app.log);
    await openDialog(app, 'import-choose', '^Choose files for the assistant');
    X.x('xdotool', ['key', '--clearmodifiers', 'ctrl+a']);
    await sleep(200);
    X.x('xdotool', ['key', 'Return']);
    // Both listed under the drop area (a line each: the Import button moves down).
    shown = await report(app, ['import-choose', 'import-button'], since, 5000, (r) => gap(r, 'import-choose', 'import-button') > listBefore + 30);
    assert.equal(shown.errors, 0, 'the panel shows an error');
    wheel(X, app.id, ...margin, 2); // the list in view, for the shot
    await sleep(800);
    await windowShot(X, app.id, 'window-import-chosen');

    // Import: one GPT stored (rehome's own log line), it opens in the editor.
    since = logLines(app.log);
    shown = await reach(app, 'import-button');
    click(X, app.id, ...shown.fields['import-button']);
    await waitLog(app.log, /"msg":"assistants imported","imported":1,"failed":0/, 60000, 'the import', since);
    await sleep(500);
    await windowShot(X, app.id, 'window-import-done');
  }
  await app.stop();
  {
    // The same data folder through the CLI, the window closed.
    const env = { ...process.env, REHOME_HOME: app.home, HOME: home };
    const list = JSON.parse(execFileSync(cli, ['assistants', 'list', '--json'], { env }).toString());
    assert.equal(list.length, 1, JSON.stringify(list));
    const shownCLI = execFileSync(cli, ['assistants', 'show', list[0].id, '--json'], { env }).toString();
    const a = JSON.parse(shownCLI);
    assert.equal(a.gizmo_id, 'g-hhh4w3eov', shownCLI);
    // Its knowledge: the two files chosen, byte for byte.
    const got = a.knowledge.map((k) => [k.name, k.sha256]).sort();
    assert.deepEqual(got, [['bugs.html', sha256(html)], ['shared-mime-info-spec.pdf', sha256(pdf)]], shownCLI);
    console.log(`window-import: ${((Date.now() - t0) / 1000).toFixed(1)} s from launch to the CLI's check`);
  }
}
