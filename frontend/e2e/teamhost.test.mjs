// Settings → Sandbox host in a real browser against a real `rehome serve`,
// with a real sshd in front of this machine's Podman as the team host
// (internal/testsupport/sshdtest/e2e-sshd): the connection test meets an
// unknown host key and shows its fingerprint; Cancel writes nothing; Trust
// adds it to known_hosts (of a HOME of the test's own, never root's) and
// the test then reports Podman there; saved, the sandbox is the team host's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, launchBrowser, openApp, artifacts, root } from './harness.mjs';

let browser;
let helper;
let host;
const sshHome = mkdtempSync(join(tmpdir(), 'rehome-teamhost-e2e-home-'));
// $REHOME_E2E_SSHD: a helper built already; else it is built here.
const helperBin = process.env.REHOME_E2E_SSHD ?? join(mkdtempSync(join(tmpdir(), 'rehome-e2e-sshd-')), 'e2e-sshd');

before(async () => {
  if (!existsSync('/usr/sbin/sshd')) {
    if (process.env.REHOME_REQUIRE_SSHD === '1') throw new Error('no /usr/sbin/sshd: install openssh-server (build/setup.sh test)');
    return;
  }
  if (!process.env.REHOME_E2E_SSHD) execFileSync('go', ['build', '-tags', 'remote,exclude_graphdriver_btrfs,btrfs_noversion,exclude_graphdriver_devicemapper,containers_image_openpgp', '-o', helperBin, './internal/testsupport/sshdtest/e2e-sshd'], { cwd: root, stdio: 'inherit' });
  helper = spawn(helperBin, [], { stdio: ['pipe', 'pipe', 'inherit'] });
  host = await new Promise((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error('e2e-sshd printed nothing in 60 s')), 60000);
    helper.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) {
        clearTimeout(timer);
        ok(JSON.parse(out.split('\n')[0]));
      }
    });
    helper.on('exit', (code) => fail(new Error(`e2e-sshd exited with ${code}`)));
  });
  mkdirSync(join(sshHome, '.ssh'), { mode: 0o700 });
  // The key where ssh keeps keys: the page may name a file there (or one
  // the user gave rehome), no other.
  copyFileSync(host.identity, join(sshHome, '.ssh', 'id_team'));
  copyFileSync(host.identity + '.pub', join(sshHome, '.ssh', 'id_team.pub'));
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  helper?.stdin.end();
  rmSync(sshHome, { recursive: true, force: true });
});

test('Sandbox host: an unknown key is shown, confirmed, the team host tested; saving it from a browser page is refused', async (t) => {
  if (!host) return t.skip('no sshd here (install openssh-server; REHOME_REQUIRE_SSHD=1 makes this a failure)');
  const knownHosts = join(sshHome, '.ssh', 'known_hosts');
  const srv = await startServe({ env: { HOME: sshHome, SSH_AUTH_SOCK: '', CONTAINER_HOST: '' } });
  try {
    const page = await openApp(browser, srv.url, { hash: '#/settings' });
    const box = page.locator('[data-testid=sandbox-host]');
    await box.locator('[data-testid=host-team]').check();
    await box.locator('[data-testid=host-uri]').fill('ssh://nobody');
    assert.match(await box.locator('[data-testid=host-problem]').innerText(), /socket’s path/);
    assert.equal(await box.locator('[data-testid=host-save]').isDisabled(), true);
    await box.locator('[data-testid=host-uri]').fill(host.uri);
    // A key file outside ~/.ssh that nobody gave rehome: refused.
    await box.locator('[data-testid=host-identity]').fill(host.identity);
    await box.locator('[data-testid=host-test]').click();
    await box.locator('[data-testid=host-error]').waitFor({ timeout: 30000 });
    assert.match(await box.locator('[data-testid=host-error]').innerText(), /is not a file you gave rehome/);
    const identity = join(sshHome, '.ssh', 'id_team');
    await box.locator('[data-testid=host-identity]').fill(identity);

    // Unknown: the dialog shows the fingerprint; Cancel writes nothing.
    await box.locator('[data-testid=host-test]').click();
    const dialog = page.locator('[data-testid=host-key-confirm]');
    await dialog.waitFor({ timeout: 30000 });
    assert.equal((await dialog.locator('[data-testid=host-key-fingerprint]').innerText()).trim(), host.fingerprint);
    await page.screenshot({ path: join(artifacts, 'teamhost-trust.png'), fullPage: true });
    await dialog.locator('[data-testid=host-key-cancel]').click();
    assert.equal(existsSync(knownHosts), false, 'Cancel wrote known_hosts');
    assert.match(await box.locator('[data-testid=host-test-result]').innerText(), /not a known host/);

    // Trust: the line added, the test then reaches Podman there.
    await box.locator('[data-testid=host-test]').click();
    await dialog.waitFor({ timeout: 30000 });
    await dialog.locator('[data-testid=host-key-trust]').click();
    const result = box.locator('[data-testid=host-test-result]');
    await page.waitForFunction(() => /Reached/.test(document.querySelector('[data-testid=host-test-result]')?.textContent ?? ''), null, { timeout: 60000 });
    assert.match(await result.innerText(), /Reached root@127\.0\.0\.1:\d+ · Podman \d/);
    assert.equal(readFileSync(knownHosts, 'utf8'), host.known_hosts_line + '\n');

    // Save from a browser page is refused (issue 29: whoever holds the
    // bridge's token must not choose where the files go); nothing is saved.
    const before = await srv.call('SandboxHost');
    await box.locator('[data-testid=host-save]').click();
    await page.waitForFunction(() => /a browser page cannot change it/.test(document.querySelector('[data-testid=sandbox-host]')?.textContent ?? ''), null, { timeout: 30000 });
    assert.deepEqual(await srv.call('SandboxHost'), before);
    await page.screenshot({ path: join(artifacts, 'teamhost-saved.png'), fullPage: true });
    assert.deepEqual(page.jsErrors, []);
  } finally {
    await srv.stop();
  }
});
