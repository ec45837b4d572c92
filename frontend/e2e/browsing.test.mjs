// Settings → Browsing in a real browser against `rehome serve`: a real
// ZIM (zimwriterfs over pages of Debian's Python docs) carried with
// `rehome library add`, listed and searched through the real kiwix-serve;
// the SearXNG address refused when it is not one, the LAN switch kept;
// a zim:// article opened through the bridge as the reader shows it
// (made safe in the backend; the reader itself: zimreader.test.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, launchBrowser, openApp, artifacts, bin } from './harness.mjs';

const docs = '/usr/share/doc/python3.11/html';
let srv, browser, home, work;


before(async () => {
  for (const need of [join(docs, 'library/json.html'), '/usr/bin/zimwriterfs', '/usr/bin/kiwix-serve']) {
    assert.ok(existsSync(need), `${need} is missing: build/setup.sh test installs python3.11-doc, zim-tools and kiwix-tools`);
  }
  work = mkdtempSync(join(tmpdir(), 'rehome-e2e-zim-'));
  const src = join(work, 'src');
  mkdirSync(join(src, 'library'), { recursive: true });
  for (const p of ['json.html', 'csv.html', 'pathlib.html']) cpSync(join(docs, 'library', p), join(src, 'library', p));
  writeFileSync(join(src, 'index.html'), '<html><head><title>Python docs (e2e)</title></head><body><a href="library/json.html">json</a></body></html>');
  // A 48×48 PNG: zimwriterfs requires an illustration (ImageMagick makes it).
  execFileSync('convert', ['-size', '48x48', 'xc:steelblue', join(src, 'illustration.png')]);
  const zim = join(work, 'py.zim');
  execFileSync('zimwriterfs', ['--welcome=index.html', '--illustration=illustration.png', '--language=eng', '--title=Python docs (e2e)',
    '--description=Three pages of the Python docs', '--creator=PSF', '--publisher=rehome tests', '--name=python-e2e', src, zim], { stdio: 'pipe' });
  home = mkdtempSync(join(tmpdir(), 'rehome-e2e-'));
  execFileSync(bin, ['library', 'add', zim, '--name', 'py'], { env: { ...process.env, REHOME_HOME: home }, stdio: 'pipe' });
  srv = await startServe({ home });
  browser = await launchBrowser();
  mkdirSync(artifacts, { recursive: true });
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
  if (work) rmSync(work, { recursive: true, force: true });
});

test('Settings → Browsing lists and searches the carried library, keeps the switches', { timeout: 180000 }, async () => {
  const page = await openApp(browser, srv.url, { hash: '#/settings' });
  const section = page.getByTestId('browsing-settings');
  await section.waitFor();
  await section.getByTestId('library-list').waitFor();
  assert.match(await section.getByTestId('library-list').innerText(), /py\s+Python docs \(e2e\)/);
  assert.match(await section.getByTestId('browsing-words').innerText(), /browsing reads 1 carried library; no search engine is set/);
  await section.getByTestId('library-search').fill('json decoder');
  await section.getByTestId('library-search').press('Enter');
  const hits = section.getByTestId('library-hits');
  await hits.waitFor({ timeout: 60000 });
  assert.match(await hits.locator('li').first().innerText(), /json — JSON encoder and decoder[\s\S]*zim:\/\/py\/library\/json\.html/);

  await section.getByTestId('searxng-url').fill('ftp://not-searxng');
  await section.getByTestId('searxng-url').dispatchEvent('change');
  await section.getByTestId('browsing-error').waitFor();
  assert.match(await section.getByTestId('browsing-error').innerText(), /is not a SearXNG address/);
  await section.getByTestId('allow-lan').check();
  for (let i = 0; i < 50 && !(await srv.call('BrowsingSettings')).allow_lan; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal((await srv.call('BrowsingSettings')).allow_lan, true);
  await page.screenshot({ path: join(artifacts, 'browsing-settings.png'), fullPage: true });
});

test('a zim:// article opens through the bridge as the reader shows it, made safe from kiwix-serve; other addresses are not fetched', { timeout: 180000 }, async () => {
  const a = await srv.call('OpenArticle', 'zim://py/library/json.html');
  assert.match(a.title, /JSON encoder and decoder/);
  assert.equal(a.source, 'zim://py/library/json.html');
  assert.equal(a.library, 'Python docs (e2e)');
  assert.match(a.html, /JSONDecoder/);
  assert.doesNotMatch(a.html, /<script|<link|<img|<html|_static/);
  await assert.rejects(srv.call('OpenArticle', 'http://169.254.169.254/latest/meta-data/'), /opens in your browser/);
  await assert.rejects(srv.call('OpenArticle', 'zim://py/../../etc/passwd'));
});
