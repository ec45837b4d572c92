// Settings → MCP in a browser, through the bridge, against the reference
// server @modelcontextprotocol/server-everything (npm, installed into
// build/mcp by build/setup.sh test) over Streamable HTTP on loopback:
// added by its URL, tested (its tools listed with how each call is
// confirmed), "Always allow" kept for a tool that asks, switched off and
// on, seen in the assistant editor, counted by the audit, removed. A
// program (stdio) cannot be added from a browser page: refused in words,
// nothing saved. Another app's mcp.json is read and one of its servers
// imported; a server that does not answer says so in words.
//
// Screenshots: $ARTIFACTS/browser-mcp-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startServe, launchBrowser, artifacts, root } from './harness.mjs';

const everything = join(root, 'build/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const missing = existsSync(everything) ? '' : 'server-everything is not installed (build/setup.sh test installs it into build/mcp)';

let srv, browser, mcp, mcpURL, assistant;

async function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
    s.on('error', fail);
  });
}

// Starts server-everything over Streamable HTTP and waits until it answers.
async function startEverything() {
  const port = await freePort();
  const proc = spawn('node', [everything, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const url = `http://127.0.0.1:${port}/mcp`;
  for (const deadline = Date.now() + 20000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    if (proc.exitCode !== null) throw new Error(`server-everything exited: ${stderr}`);
    try {
      await fetch(url, { method: 'GET' });
      return { proc, url };
    } catch {
      // not listening yet
    }
  }
  proc.kill();
  throw new Error(`server-everything did not listen on ${url}: ${stderr}`);
}

before(async () => {
  if (missing) {
    if (process.env.REHOME_REQUIRE_TOOLS === '1') throw new Error(missing);
    return;
  }
  ({ proc: mcp, url: mcpURL } = await startEverything());
  srv = await startServe();
  browser = await launchBrowser();
  mkdirSync(artifacts, { recursive: true });
  assistant = await srv.call('CreateAssistant', { name: 'Data Analyst', instructions: 'Analyse data.' });
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  mcp?.kill();
});

async function mcpSettings(hash = '#/settings/mcp') {
  // Each test starts with no server (one that failed leaves none behind).
  for (const s of await srv.call('MCPServersOf', assistant.id)) await srv.call('RemoveMCPServer', assistant.id, s.name);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(srv.url);
  await page.evaluate((h) => (location.hash = h), hash);
  await page.getByTestId('mcp-settings').waitFor();
  await page.getByTestId('mcp-add-form').waitFor();
  return { page, errors };
}

test('Settings → MCP: add server-everything by its URL, test it, its tools and their confirmation, Always allow, off and on, remove', async (t) => {
  if (missing) return t.skip(missing);
  const { page, errors } = await mcpSettings();
  await page.getByTestId('mcp-kind-http').check();
  await page.getByTestId('mcp-url').fill(mcpURL);
  assert.equal(await page.getByTestId('mcp-name').inputValue(), '127-0-0-1', 'the name follows the URL until typed');
  await page.getByTestId('mcp-name').fill('everything');
  await page.getByTestId('mcp-add').click();
  await page.getByTestId('mcp-notice').filter({ hasText: 'Added everything to Data Analyst' }).waitFor();
  const card = page.locator('[data-testid=mcp-server][data-name=everything]');
  await card.waitFor();
  assert.equal(await card.getAttribute('data-state'), 'untested');
  assert.equal(await card.getByTestId('mcp-server-what').textContent(), mcpURL);

  await card.getByTestId('mcp-test').click();
  await card.getByTestId('mcp-server-notice').filter({ hasText: /Connected: \d+ tools/ }).waitFor({ timeout: 40000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=mcp-server][data-name=everything]')?.getAttribute('data-state') === 'running');
  const tools = await card.getByTestId('mcp-tool').evaluateAll((rows) => rows.map((r) => ({ name: r.dataset.tool, rule: r.dataset.rule, text: r.textContent })));
  assert.ok(tools.length >= 5, `server-everything's tools: ${tools.map((x) => x.name)}`);
  const echo = tools.find((x) => x.name === 'echo');
  assert.equal(echo?.rule, 'none', 'echo is read-only (its annotation)');
  assert.match(echo.text, /Runs without asking/);
  assert.match(echo.text, /everything_echo/, 'the name the model calls it by');
  const ask = tools.find((x) => x.rule === 'ask');
  assert.ok(ask, 'a tool without a read-only annotation asks');
  assert.match(ask.text, /Asks first/);
  assert.match(await card.getByTestId('mcp-tool-count').textContent(), new RegExp(`^${tools.length} tools$`));

  await card.locator(`[data-testid=mcp-tool][data-tool="${ask.name}"] [data-testid=mcp-always-allow]`).check();
  await card.getByTestId('mcp-server-notice').filter({ hasText: `${ask.name} now runs without asking` }).waitFor();
  let saved = await srv.call('MCPServersOf', assistant.id);
  assert.deepEqual(saved[0].tools.filter((x) => x.always_allowed).map((x) => x.name), [ask.name]);
  assert.equal(await card.locator(`[data-testid=mcp-tool][data-tool=echo] [data-testid=mcp-always-allow]`).count(), 0, 'a read-only tool offers no Always allow');

  await card.getByTestId('mcp-server-on').uncheck();
  await page.waitForFunction(() => document.querySelector('[data-testid=mcp-server][data-name=everything]')?.getAttribute('data-state') === 'off');
  assert.match(await card.getByTestId('mcp-server-state').textContent(), /^Off/);
  await card.getByTestId('mcp-server-on').check();
  await page.waitForFunction(() => document.querySelector('[data-testid=mcp-server][data-name=everything]')?.getAttribute('data-state') === 'listed');
  await page.screenshot({ path: join(artifacts, 'browser-mcp-settings.png'), fullPage: true });

  // The assistant editor lists it; the audit counts its tools.
  await page.evaluate(() => (location.hash = '#/assistants'));
  await page.getByTestId('assistant-row').filter({ hasText: 'Data Analyst' }).click();
  const inEditor = page.locator('[data-testid=assistant-mcp-server][data-name=everything]');
  await inEditor.waitFor();
  assert.match(await inEditor.textContent(), new RegExp(`URL · Tools listed .* · ${tools.length} tools`));
  const rec = await srv.call('RunAudit', { assistant_ids: [assistant.id], vram_bytes: 24 * 2 ** 30, ram_bytes: 64 * 2 ** 30, air_gapped: true });
  assert.equal(rec.assistants[0].mcp.headline, `${tools.length} tools from 1 MCP server`);
  assert.equal(rec.assistants[0].mcp.category, 'hosts', 'a loopback server is hosted here, air-gapped too');
  await page.evaluate(() => (location.hash = '#/audit'));
  await page.locator(`[data-testid=history-row][data-audit-id="${rec.id}"] button.link`).first().click();
  const mcpCard = page.locator('[data-testid=column-hosts] [data-testid=cap-card][data-cap=mcp_tools]');
  await mcpCard.waitFor();
  assert.equal(await mcpCard.getByTestId('mcp-audit-headline').textContent(), `${tools.length} tools from 1 MCP server`);
  await mcpCard.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, 'browser-mcp-audit.png') });

  await page.evaluate(() => (location.hash = '#/settings/mcp'));
  await card.getByTestId('mcp-remove').click();
  await card.getByTestId('mcp-remove-yes').click();
  await page.getByTestId('mcp-none').filter({ hasText: 'Data Analyst' }).waitFor();
  assert.equal(await page.locator('[data-testid=mcp-server]').count(), 0);
  saved = await srv.call('MCPServersOf', assistant.id);
  assert.deepEqual(saved, []);
  assert.deepEqual(errors, []);
});

test('Settings → MCP in a browser: a program is refused in words and nothing is saved; a server that does not answer says why', async (t) => {
  if (missing) return t.skip(missing);
  const { page, errors } = await mcpSettings();
  await page.getByTestId('mcp-kind-stdio').check();
  await page.getByTestId('mcp-command').fill(`node ${everything} stdio`);
  assert.equal(await page.getByTestId('mcp-name').inputValue(), 'everything', "named after the script's package");
  await page.getByTestId('mcp-browser-note').waitFor();
  await page.getByTestId('mcp-add').click();
  const err = page.getByTestId('mcp-add-error');
  await err.waitFor();
  assert.match(await err.textContent(), /cannot be added from a browser page: add it in the rehome window .*rehome mcp add/);
  assert.deepEqual(await srv.call('MCPServersOf', assistant.id), []);

  await page.getByTestId('mcp-kind-http').check();
  await page.getByTestId('mcp-url').fill('http://127.0.0.1:1/mcp');
  await page.getByTestId('mcp-name').fill('nobody');
  await page.getByTestId('mcp-add').click();
  const card = page.locator('[data-testid=mcp-server][data-name=nobody]');
  await card.waitFor();
  await card.getByTestId('mcp-test').click();
  await card.getByTestId('mcp-server-error').waitFor({ timeout: 40000 });
  assert.match(await card.getByTestId('mcp-server-error').textContent(), /nobody: could not connect/);
  await page.waitForFunction(() => document.querySelector('[data-testid=mcp-server][data-name=nobody]')?.getAttribute('data-state') === 'failed');
  await page.screenshot({ path: join(artifacts, 'browser-mcp-refused.png'), fullPage: true });
  await srv.call('RemoveMCPServer', assistant.id, 'nobody');
  assert.deepEqual(errors, []);
});

test('Settings → MCP: import another app\'s mcp.json — listed without its variables\' values, the URL server imported, the program left to the window', async (t) => {
  if (missing) return t.skip(missing);
  const { page, errors } = await mcpSettings();
  await page.getByTestId('mcp-import').locator('summary').click();
  // LM Studio's mcp.json form (Claude Desktop's and Jan's are the same).
  const file = { mcpServers: { 'Everything Web': { url: mcpURL }, fetch: { command: 'uvx', args: ['mcp-server-fetch'], env: { FETCH_TOKEN: 'canary-3391' } } } };
  // Its file, chosen with the button (the file input behind it is hidden: WebKitGTK draws a visible one as a black box)…
  assert.equal(await page.getByTestId('mcp-import-file').isVisible(), false, 'the file input shows');
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('mcp-import-choose').click()]);
  await chooser.setFiles({ name: 'mcp.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(file)) });
  const list = page.getByTestId('mcp-import-list');
  await list.waitFor();
  assert.equal(await page.getByTestId('mcp-import-entry').count(), 2);
  await page.locator('[data-testid=mcp-import] div.muted', { hasText: /^In mcp\.json:$/ }).waitFor();
  // …or pasted.
  await page.getByTestId('mcp-import-paste').fill(JSON.stringify(file, null, 2));
  await page.getByTestId('mcp-import-read').click();
  await page.locator('[data-testid=mcp-import] div.muted', { hasText: /^In the pasted text:$/ }).waitFor();
  assert.equal(await page.getByTestId('mcp-import-entry').count(), 2);
  const text = await list.textContent();
  assert.match(text, /everything-web/);
  assert.match(text, /with FETCH_TOKEN/);
  assert.doesNotMatch(await page.content(), /canary-3391/, "a variable's value never reaches the page");
  // Both ticked: the program among them is refused, and none is added.
  await page.getByTestId('mcp-import-go').click();
  await page.getByTestId('mcp-import-error').filter({ hasText: 'cannot be added from a browser page' }).waitFor();
  assert.deepEqual(await srv.call('MCPServersOf', assistant.id), []);
  await page.locator('[data-testid=mcp-import-entry][data-name=fetch] input[type=checkbox]').uncheck();
  await page.getByTestId('mcp-import-go').click();
  await page.getByTestId('mcp-import-notice').filter({ hasText: 'Added to Data Analyst: everything-web' }).waitFor();
  const card = page.locator('[data-testid=mcp-server][data-name=everything-web]');
  await card.waitFor();
  await card.getByTestId('mcp-test').click();
  await card.getByTestId('mcp-server-notice').filter({ hasText: /Connected/ }).waitFor({ timeout: 40000 });
  await page.screenshot({ path: join(artifacts, 'browser-mcp-import.png'), fullPage: true });
  await srv.call('RemoveMCPServer', assistant.id, 'everything-web');
  assert.deepEqual(errors, []);
});
