// A real ZIM for the reader's tests: zimwriterfs over four pages of
// Debian's Python 3.11 docs (json, csv, pathlib, the tutorial's input and
// output), the json page carrying a hostile part these tests add — an
// inline script that sets a flag, changes the title and calls out; a
// tracking pixel, a stylesheet, a frame and a styled background; an
// onerror and an onmouseover — every address in it pointing at `far`, a
// loopback server the test counts requests on.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const docs = '/usr/share/doc/python3.11/html';

/** A loopback server that answers nothing and keeps every URL asked of it in .reached. */
export function countingServer() {
  return new Promise((ok) => {
    const s = createServer((req, res) => {
      s.reached.push(req.url);
      res.end('');
    });
    s.reached = [];
    s.listen(0, '127.0.0.1', () => ok(s));
  });
}

/** Builds the ZIM; resolves to { zim, work } (work: the folder to remove). */
export function hostileZim(far) {
  for (const need of [join(docs, 'library/json.html'), '/usr/bin/zimwriterfs', '/usr/bin/kiwix-serve']) {
    assert.ok(existsSync(need), `${need} is missing: build/setup.sh test installs python3.11-doc, zim-tools and kiwix-tools`);
  }
  const work = mkdtempSync(join(tmpdir(), 'rehome-e2e-zimreader-'));
  const src = join(work, 'src');
  mkdirSync(join(src, 'library'), { recursive: true });
  mkdirSync(join(src, 'tutorial'), { recursive: true });
  for (const p of ['csv.html', 'pathlib.html']) cpSync(join(docs, 'library', p), join(src, 'library', p));
  cpSync(join(docs, 'tutorial/inputoutput.html'), join(src, 'tutorial/inputoutput.html'));
  const hostile =
    `<script>window.__zimScriptRan = true; document.title = 'ran'; fetch('${far}/script')</script>` +
    `<link rel="stylesheet" href="${far}/style.css"><img src="${far}/pixel.png" alt="a tracking pixel"><img src="x" onerror="window.__zimScriptRan = true">` +
    `<iframe src="${far}/frame"></iframe><p style="background:url(${far}/bg.png)" class="overlay" onmouseover="window.__zimScriptRan = true">` +
    `See <a href="csv.html">the csv module</a> and <a href="https://example.org/e2e">a page on the web</a>.</p>`;
  const json = readFileSync(join(docs, 'library/json.html'), 'utf8').replace(/(<h1>[\s\S]*?<\/h1>)/, `$1${hostile}`);
  assert.ok(json.includes('__zimScriptRan'), 'the hostile part went into the json page');
  writeFileSync(join(src, 'library/json.html'), json);
  writeFileSync(join(src, 'index.html'), '<html><head><title>Python docs (e2e)</title></head><body><a href="library/json.html">json</a></body></html>');
  execFileSync('convert', ['-size', '48x48', 'xc:steelblue', join(src, 'illustration.png')]);
  const zim = join(work, 'py.zim');
  execFileSync('zimwriterfs', ['--welcome=index.html', '--illustration=illustration.png', '--language=eng', '--title=Python docs (e2e)',
    '--description=Four pages of the Python docs', '--creator=PSF', '--publisher=rehome tests', '--name=python-e2e', src, zim], { stdio: 'pipe' });
  return { zim, work };
}
