// The assistant editor's knowledge dialog in the real window (the built
// binary on Xvfb): on a new assistant, before any Save, "choose files"
// opens GTK's chooser for several files, in ~/Documents the first time;
// Ctrl+A and Enter take both files there, the assistant is saved as a
// draft and both are indexed. The picture is chosen with the
// window's dialog too (a WebP, kept re-encoded: Remove shows). Screenshot: $ARTIFACTS/window-editor-knowledge.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, root } from './harness.mjs';
import { startXvfb, launch, waitScreen, waitLog, logLines, click, wheel, windowShot, sleep } from './xwin.mjs';

let X;
before(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`make build\` first`);
  X = await startXvfb();
});
after(() => X?.stop());

async function waitWindow(re, timeoutMs) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const id = X.x('xdotool', ['search', '--onlyvisible', '--name', re]).trim().split('\n')[0];
      if (id) return id;
    } catch {
      // none yet
    }
    if (Date.now() > end) throw new Error(`no window named ${re} appeared in ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

test('the window: several knowledge files from one dialog that starts in Documents, before the first Save', async () => {
  const home = mkdtempSync(join(tmpdir(), 'rehome-editor-home-'));
  const docs = join(home, 'Documents');
  mkdirSync(docs);
  writeFileSync(join(docs, 'returns.md'), '# Returns\n\nReturns are free for 30 days.\n');
  writeFileSync(join(docs, 'shipping.md'), '# Shipping\n\nOrders ship within two days.\n');
  const app = await launch(X, 'editor', { env: { HOME: home } });
  try {
    let since = logLines(app.log);
    click(X, app.id, 60, 120); // Assistants
    let shown = await waitScreen(app.log, 'assistants', ['new-assistant'], since);
    since = logLines(app.log);
    click(X, app.id, ...shown.fields['new-assistant']);
    shown = await waitScreen(app.log, 'assistants', ['knowledge-choose', 'picture-choose'], since);
    // The picture: the window's own dialog, the path typed.
    since = logLines(app.log);
    click(X, app.id, ...shown.fields['picture-choose']);
    const picker = await waitWindow("^Choose the assistant's picture", 30000);
    X.x('xdotool', ['windowfocus', '--sync', picker]);
    await sleep(800);
    X.x('xdotool', ['key', '--clearmodifiers', 'ctrl+l']);
    X.x('xdotool', ['type', '--delay', '10', join(root, 'backend/vision/testdata/blue-purple-pink.lossy.webp')]);
    X.x('xdotool', ['key', 'Return']);
    shown = await waitScreen(app.log, 'assistants', ['picture-remove', 'knowledge-choose'], since);
    // The Knowledge section is below the form: scroll until its button shows.
    for (let i = 0; i < 12 && shown.fields['knowledge-choose'][1] > 740; i++) {
      since = logLines(app.log);
      wheel(X, app.id, 700, 400, 5);
      await sleep(400);
      shown = await waitScreen(app.log, 'assistants', ['knowledge-choose'], since).catch(() => shown);
    }
    // The layout settles (a scroll reports its fields once it rests): the
    // latest report is where the button is; a click that landed while it
    // moved is made again.
    let chooser;
    for (let i = 0; i < 3 && !chooser; i++) {
      await sleep(600);
      shown = await waitScreen(app.log, 'assistants', ['knowledge-choose'], 0);
      click(X, app.id, ...shown.fields['knowledge-choose']);
      chooser = await waitWindow('^Choose files for the assistant', 10000).catch(() => undefined);
    }
    assert.ok(chooser, 'the knowledge dialog opened');
    X.x('xdotool', ['windowfocus', '--sync', chooser]);
    await sleep(800);
    X.x('xdotool', ['key', '--clearmodifiers', 'ctrl+a']);
    await sleep(200);
    X.x('xdotool', ['key', 'Return']);
    const [listed] = await waitLog(app.log, /"event":"knowledge listed".*returns\.md: indexed.*shipping\.md: indexed|"event":"knowledge listed".*shipping\.md: indexed.*returns\.md: indexed/, 90000, 'both files indexed', app.since);
    assert.match(listed.files, /returns\.md: indexed/);
    assert.match(listed.files, /shipping\.md: indexed/);
    await sleep(500);
    await windowShot(X, app.id, 'window-editor-knowledge');
  } finally {
    await app.stop();
    rmSync(app.home, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
});
