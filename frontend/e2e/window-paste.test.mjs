// Pasting into Ask's question in the real window (the built binary on
// Xvfb). WebKitGTK hands the page no image pasted from the desktop's
// clipboard (WebKitGTK bug 320303), so rehome reads the X clipboard
// itself: a PNG put there with xclip and pasted with Ctrl+V becomes the
// question's file (its chip shows) and the file rehome kept is that PNG,
// byte for byte; text on the clipboard still pastes as text, no file
// added; a PNG bomb on the clipboard is refused on the screen in words,
// nothing kept. Screenshots: $ARTIFACTS/window-paste.png (the window),
// window-paste-root.png (the whole screen), window-paste-bomb.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, artifacts } from './harness.mjs';
import { pngBomb } from './pngs.mjs';
import { startXvfb, launch, waitScreen, waitLog, logLines, click, windowShot, sleep } from './xwin.mjs';

let X;
before(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`make build\` first`);
  X = await startXvfb();
});
after(() => X?.stop());

const sha256 = (b) => createHash('sha256').update(b).digest('hex');

/**
 * Makes xclip own the X CLIPBOARD with file's bytes as type; resolves once
 * the clipboard offers that type, to a stop function (xclip -quiet stays
 * in the foreground, serving the selection, until it is ended).
 */
async function ownClipboard(file, type) {
  const as = type === 'UTF8_STRING' ? [] : ['-t', type]; // text: xclip's own targets, as an editor offers it
  const p = spawn('xclip', ['-quiet', '-selection', 'clipboard', ...as, '-i', file], { env: X.env, stdio: 'ignore' });
  const stop = () => p.exitCode === null && p.kill('SIGTERM');
  const end = Date.now() + 10000;
  for (;;) {
    try {
      if (X.x('xclip', ['-selection', 'clipboard', '-o', '-t', 'TARGETS']).split('\n').includes(type)) return stop;
    } catch {
      // not owned yet
    }
    if (Date.now() > end) {
      stop();
      throw new Error(`xclip never offered ${type} on the clipboard (install it: apt-get install xclip)`);
    }
    await sleep(100);
  }
}

test('the window: a screenshot pasted into the question becomes its file; text pastes as text; a bomb is refused', async (t) => {
  const scratch = mkdtempSync(join(tmpdir(), 'rehome-paste-'));
  // A real PNG, as a screenshot tool puts on the clipboard.
  const shot = join(scratch, 'shot.png');
  execFileSync('convert', ['-size', '320x200', 'gradient:#3060c0-#c04030', '-fill', 'white', '-draw', 'rectangle 40,40 120,100', shot]);
  const png = readFileSync(shot);
  const words = join(scratch, 'words.txt');
  execFileSync('sh', ['-c', `printf 'how many rows are there' > ${words}`]);
  const app = await launch(X, 'paste');
  try {
    let since = logLines(app.log);
    click(X, app.id, 60, 240); // Ask
    const shown = await waitScreen(app.log, 'ask', ['ask-input'], since);
    click(X, app.id, ...shown.fields['ask-input']);

    // Text: typed into the question by the paste itself, no file added.
    let stop = await ownClipboard(words, 'UTF8_STRING');
    since = logLines(app.log);
    X.x('xdotool', ['key', '--clearmodifiers', 'ctrl+v']);
    const [typed] = await waitLog(app.log, /"event":"ask pasted"/, 15000, 'the text paste reported', since);
    stop();
    assert.equal(typed.chars, 'how many rows are there'.length, 'the pasted text is in the question');
    assert.equal(typed.image, '', 'text is no image');
    assert.equal(typed.files, '');

    // The image: read from the X clipboard by rehome, kept, a chip shown.
    stop = await ownClipboard(shot, 'image/png');
    since = logLines(app.log);
    const pressed = Date.now();
    X.x('xdotool', ['key', '--clearmodifiers', 'ctrl+v']);
    const [kept] = await waitLog(app.log, /"msg":"image pasted"|"msg":"paste refused"|"msg":"clipboard not read"/, 15000, 'the image paste', since);
    const [pasted] = await waitLog(app.log, /"event":"ask pasted"/, 15000, 'the image paste reported', since);
    stop();
    assert.equal(kept.msg, 'image pasted', JSON.stringify(kept));
    assert.match(pasted.image, /^pasted-[0-9a-f]{8}\.png$/);
    assert.equal(pasted.files, pasted.image, 'the image is the question\'s file');
    assert.equal(pasted.chars, 'how many rows are there'.length, 'an image pastes no text');
    assert.ok(kept.path.startsWith(join(app.home, 'uploads') + '/'), kept.path);
    assert.equal(sha256(readFileSync(kept.path)), sha256(png), 'the kept file is the PNG on the clipboard');
    assert.ok(kept.path.includes(sha256(png).slice(0, 24)), 'kept under its hash');
    await waitScreen(app.log, 'ask', ['ask-file-chip', 'ask-input'], since);
    await sleep(300);
    const file = await windowShot(X, app.id, 'window-paste');
    mkdirSync(artifacts, { recursive: true });
    X.x('import', ['-window', 'root', join(artifacts, 'window-paste-root.png')]);

    // A bomb: refused in words before a pixel is decoded, no file added.
    const bomb = join(scratch, 'bomb.png');
    writeFileSync(bomb, pngBomb(30000, 30000));
    stop = await ownClipboard(bomb, 'image/png');
    since = logLines(app.log);
    X.x('xdotool', ['key', '--clearmodifiers', 'ctrl+v']);
    const [refused] = await waitLog(app.log, /"msg":"paste refused"|"msg":"image pasted"/, 15000, 'the bomb refused', since);
    const [after] = await waitLog(app.log, /"event":"ask pasted"/, 15000, 'the bomb paste reported', since);
    stop();
    assert.equal(refused.msg, 'paste refused', JSON.stringify(refused));
    assert.match(refused.err, /30000 × 30000 pixels, at most 12000 on a side/);
    assert.equal(after.image, '');
    assert.equal(after.files, pasted.image, 'the bomb joined no files');
    const errShown = await waitScreen(app.log, 'ask', ['ask-error', 'ask-file-chip'], since);
    assert.ok(errShown.errors >= 1, 'the refusal is on the screen');
    await windowShot(X, app.id, 'window-paste-bomb');
    t.diagnostic(`pasted ${png.length} bytes as ${pasted.image} in ${Date.parse(pasted.time) - pressed} ms (Ctrl+V to the page's report of the file added); screenshot ${file}`);
  } finally {
    await app.stop();
    rmSync(app.home, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
});
