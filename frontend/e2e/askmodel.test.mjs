// Choosing a model in Ask (`rehome serve`, headless Chromium): a server
// added from the model line (not the header) lists its models beside the
// carried one, whose long name shows in full at 1280×800 and 900×620; a
// model's own settings are edited in plain words, kept, and sent with the
// question (the recorded server sees them on the wire); and a ```python
// block the model wrote in its answer instead of calling the tool runs in
// the conversation's sandbox session only when Run is clicked.
//
// Needs Podman and the sandbox image; the carried model needs llama.cpp's
// tree (`make llama`) to make the tiny GGUF (that test skips without it).
// Screenshots land in $ARTIFACTS as browser-askmodel-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, launchBrowser, artifacts, recordedOllama, testdata, chosenModel, serverField, bin, root } from './harness.mjs';

const LONG = 'tiny-qwen2.5-coder-32b-instruct-q4_K_M-carried-from-the-laptop';
let srv, browser, model, scratch, noCarried;

function llamaServer() {
  if (process.env.REHOME_LLAMA_SERVER) return existsSync(process.env.REHOME_LLAMA_SERVER) ? process.env.REHOME_LLAMA_SERVER : null;
  try {
    return execFileSync('bash', [join(root, 'build/llm/llama-server.sh'), '--find'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim() || null;
  } catch {
    return null;
  }
}

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'rehome-askmodel-e2e-'));
  const home = join(scratch, 'home');
  const llama = llamaServer();
  if (llama) {
    const gguf = join(scratch, 'tiny.gguf');
    execFileSync('go', ['run', './internal/testsupport/tinymodel/cmd/tinymodel', '-o', gguf], { cwd: root, stdio: 'inherit' });
    execFileSync(bin, ['models', 'add', gguf, '--name', LONG], { env: { ...process.env, REHOME_HOME: home }, stdio: 'inherit' });
  } else noCarried = 'no llama-server tree to make the tiny model from: `make llama` builds it, or set REHOME_LLAMA_SERVER';
  srv = await startServe({ home });
  await srv.call('DismissFirstRun'); // the checklist's dialog is another test's (firstrun)
  browser = await launchBrowser();
  model = await recordedOllama('tools-example-answer');
  mkdirSync(artifacts, { recursive: true });
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  model?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

async function openAsk(width, height) {
  const page = await browser.newPage({ viewport: { width, height } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(srv.url);
  await page.evaluate(() => (location.hash = '#/ask'));
  await page.getByTestId('ask-input').waitFor();
  return { page, errors };
}

// The model picker's label as shown: cut or whole, its tooltip, the room left in the header.
function picker(page) {
  return page.evaluate(() => {
    const label = document.querySelector('[data-testid=ask-model-label]');
    const pick = document.querySelector('[data-testid=ask-model-picker]');
    const top = pick.parentElement;
    const assistant = document.querySelector('[data-testid=ask-assistant]');
    const r = pick.getBoundingClientRect();
    return {
      text: label.textContent,
      option: document.querySelector('[data-testid=ask-model]').selectedOptions[0]?.textContent,
      cut: label.scrollWidth > label.clientWidth + 1,
      widths: [label.scrollWidth, label.clientWidth, top.clientWidth],
      ellipsis: getComputedStyle(label).textOverflow,
      title: pick.title,
      right: r.right,
      free: top.getBoundingClientRect().right - top.lastElementChild.getBoundingClientRect().right,
      // The assistant's select keeps room for its chosen name ("No assistant") and its arrow.
      assistantFull: (() => {
        const alone = assistant.cloneNode(true); // its natural width, outside the header
        alone.style.cssText = 'position: absolute; visibility: hidden';
        document.body.append(alone);
        alone.value = assistant.value;
        const natural = alone.getBoundingClientRect().width;
        alone.remove();
        return assistant.getBoundingClientRect().width >= Math.min(natural, 260) - 0.5;
      })(),
    };
  });
}

async function addServer(page) {
  const url = `http://127.0.0.1:${model.address().port}/v1`;
  await (await serverField(page)).fill(url);
  await page.getByTestId('ask-server-url').press('Enter');
  // The look is done (the server may be listed already: it is kept in Settings once it answered).
  await page.waitForFunction(() => document.querySelector('[data-testid=ask-server-row] button')?.textContent === 'Look again' && document.querySelector('[data-testid=ask-model]')?.textContent?.includes('qwen2.5:7b'));
  return url;
}

test('a server URL given, the carried model stays listed beside its models, its long name in full', async (t) => {
  if (noCarried) return t.skip(noCarried);
  for (const [w, h] of [[1280, 800], [900, 620]]) {
    const { page, errors } = await openAsk(w, h);
    // Adding a server is on the model line, not in the header.
    await page.waitForFunction(() => document.querySelector('[data-testid=ask-model]'));
    assert.equal(await page.locator('.top [data-testid=ask-servers]').count(), 0, 'the header holds no server button');
    const url = await addServer(page);
    const values = await page.locator('[data-testid=ask-model] option').evaluateAll((os) => os.map((o) => o.value));
    assert.ok(values.includes(`${url}|qwen2.5:7b`) && values.includes(`|${LONG}`), `both listed: ${values}`);
    // The model picker shows the chosen model's whole label, cut with an
    // ellipsis (the whole label in its tooltip) only when the header is full.
    const fits = (p, what) => {
      assert.equal(p.text, p.option, what);
      assert.ok(p.right <= w && p.assistantFull, `${what}: the header fits at ${w}×${h}: ${JSON.stringify(p)}`);
      if (p.cut) assert.ok(p.ellipsis === 'ellipsis' && p.title === p.option && p.free < 2, `${what} cut at ${w}×${h}: ${JSON.stringify(p)}`);
    };
    await page.getByTestId('ask-model').selectOption(`${url}|qwen2.5:7b`);
    assert.equal(await chosenModel(page, `${url}|qwen2.5:7b`), `${url}|qwen2.5:7b`);
    fits(await picker(page), 'qwen2.5:7b');
    if (w === 1280) {
      // On a wider window the header has room for its whole label (about 800 px).
      await page.setViewportSize({ width: 1600, height: h });
      const whole = await picker(page);
      assert.ok(!whole.cut && whole.free > 2, `qwen2.5:7b in full at 1600×${h}: ${JSON.stringify(whole)}`);
      await page.setViewportSize({ width: w, height: h });
    }
    await page.getByTestId('ask-model').selectOption(`|${LONG}`);
    assert.equal(await chosenModel(page, `|${LONG}`), `|${LONG}`);
    fits(await picker(page), LONG);
    const name = page.getByTestId('ask-model-name');
    assert.equal(await name.innerText(), LONG);
    const box = await name.evaluate((n) => ({ sw: n.scrollWidth, cw: n.clientWidth, right: n.getBoundingClientRect().right }));
    assert.ok(box.sw <= box.cw + 1 && box.right <= w, `the full name is visible at ${w}×${h}: ${JSON.stringify(box)}`);
    await page.screenshot({ path: join(artifacts, `browser-askmodel-carried-${w}x${h}.png`) });
    // The carried model's context is its llama-server's -c: settable here.
    await page.getByTestId('ask-model-settings').click();
    assert.equal(await page.getByTestId('model-context').isDisabled(), false);
    assert.match(await page.getByTestId('model-context-words').innerText(), /-c/);
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test("a model's settings are kept and sent; a python block of the answer runs only on Run", async () => {
  const lim = await srv.call('RunLimits');
  await srv.call('SetRunLimits', { ...lim, timeout_ns: 120e9 }); // a loaded machine takes long to import pandas
  const { page, errors } = await openAsk(1280, 800);
  const url = await addServer(page);
  await page.getByTestId('ask-model').selectOption(`${url}|qwen2.5:7b`);
  assert.equal(await chosenModel(page, `${url}|qwen2.5:7b`), `${url}|qwen2.5:7b`);

  await page.getByTestId('ask-model-settings').click();
  const panel = page.getByTestId('model-settings');
  await panel.waitFor();
  // A served model's context is its server's to decide, said so.
  assert.equal(await page.getByTestId('model-context').isDisabled(), true);
  assert.match(await page.getByTestId('model-context-words').innerText(), /the server decides/);
  await page.getByTestId('model-temperature').fill('9');
  await page.getByTestId('model-settings-save').click();
  assert.match(await page.getByTestId('model-settings-problem').innerText(), /0 to 2/);
  await page.getByTestId('model-temperature').fill('0.3');
  await page.getByTestId('model-system-prompt').fill('Answer in plain words.');
  await page.getByTestId('model-settings-save').click();
  await page.getByTestId('model-settings-note').waitFor();
  assert.equal(await page.getByTestId('ask-model-settings-line').innerText(), 'temperature 0.3 · its own system prompt');
  await page.screenshot({ path: join(artifacts, 'browser-askmodel-settings.png') });
  assert.deepEqual((await srv.call('ModelSettings'))['qwen2.5:7b'], { temperature: 0.3, system_prompt: 'Answer in plain words.' });

  await page.setInputFiles('[data-testid=ask-file-input]', join(testdata, 'sales.csv'));
  await page.getByText('sales.csv').first().waitFor();
  await page.getByTestId('ask-input').fill('Which region had the most revenue?');
  await page.getByTestId('ask-send').click();
  const answer = page.getByTestId('ask-answer');
  await answer.waitFor({ timeout: 240000 });
  // The settings went on the wire with the question.
  const sent = JSON.parse(model.bodies[0]);
  assert.equal(sent.temperature, 0.3);
  assert.match(sent.messages[0].content, /Answer in plain words\./);
  assert.equal(await page.getByTestId('ask-used-settings').innerText(), 'temperature 0.3 · its own system prompt');

  // The answer's python block: offered, not run.
  const run = answer.locator('button[data-run]');
  assert.equal(await run.count(), 1);
  assert.equal(await page.getByTestId('ask-block-run').count(), 0);
  const conv = (await srv.call('ListConversations', 1))[0];
  assert.equal((await srv.call('GetConversation', conv.id)).exchanges[0].turns.flatMap((t) => t.cells ?? []).length, 1, 'the loop ran only the tool call');
  await run.click();
  await page.waitForFunction(() => document.querySelector('[data-testid=ask-block-output], [data-testid=ask-block-error]'), null, { timeout: 180000 });
  assert.equal(await page.getByTestId('ask-block-error').count(), 0, `the run failed: ${await page.getByTestId('ask-block-run').innerText()}`);
  const out = page.getByTestId('ask-block-output');
  assert.match(await out.innerText(), /South\s+230\.0/); // df from the model's cell: the same session
  assert.match(await page.getByTestId('ask-block-summary').innerText(), /^Python · ran/);
  await page.getByTestId('ask-block-run').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, 'browser-askmodel-run.png') });
  await page.setViewportSize({ width: 900, height: 620 });
  await page.getByTestId('ask-block-run').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, 'browser-askmodel-run-900x620.png') });
  assert.deepEqual(errors, []);
});

test("a carried model's context length, set here, is the -c its llama-server starts with", async (t) => {
  if (noCarried) return t.skip(noCarried);
  const lim = await srv.call('RunLimits');
  await srv.call('SetRunLimits', { ...lim, timeout_ns: 120e9 });
  const { page, errors } = await openAsk(1280, 800);
  await page.waitForFunction((v) => [...document.querySelectorAll('[data-testid=ask-model] option')].some((o) => o.value === v), `|${LONG}`);
  await page.getByTestId('ask-model').selectOption(`|${LONG}`);
  await page.getByTestId('ask-model-settings').click();
  await page.getByTestId('model-context').fill('3072');
  await page.getByTestId('model-settings-save').click();
  await page.getByTestId('model-settings-note').waitFor();
  assert.equal(await page.getByTestId('ask-model-settings-line').innerText(), 'context 3,072 tokens');
  await page.setInputFiles('[data-testid=ask-file-input]', join(testdata, 'sales.csv'));
  await page.getByText('sales.csv').first().waitFor();
  await page.getByTestId('ask-input').fill('Summarise sales.csv.');
  await page.getByTestId('ask-send').click();
  await page.getByTestId('ask-answer').waitFor({ timeout: 300000 });
  // What the answer was asked with: the context its server really ran with.
  assert.equal(await page.getByTestId('ask-used-settings').innerText(), 'context 3,072 tokens');
  const conv = await srv.call('GetConversation', (await srv.call('ListConversations', 1))[0].id);
  assert.equal(conv.exchanges[0].settings.context, 3072);
  await page.screenshot({ path: join(artifacts, 'browser-askmodel-carried-context.png') });
  assert.deepEqual(errors, []);
});
