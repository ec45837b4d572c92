// The capability audit end to end: the CLI's `rehome audit` and
// `rehome assistants import|export`, and the Audit screen in a real
// browser against `rehome serve` (import form, three columns with reasons,
// verdict, across view, history, comparison, checklist and export).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { startServe, launchBrowser, openApp, artifacts, bin } from './harness.mjs';

const fixture = resolve('../backend/assistant/testdata/openai_assistant.json');
let srv, browser, work;

before(async () => {
  srv = await startServe();
  browser = await launchBrowser();
  mkdirSync(artifacts, { recursive: true });
  work = mkdtempSync(join(tmpdir(), 'rehome-audit-e2e-'));
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs the rehome binary with its own data directory. */
function cli(home, ...args) {
  return new Promise((ok) => {
    const env = { ...process.env, REHOME_HOME: home };
    delete env.DISPLAY;
    execFile(bin, args, { env, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      ok({ code: err ? err.code ?? 1 : 0, stdout, stderr });
    });
  });
}


const byId = (list, id) => list.find((c) => c.id === id);

test('rehome audit --features … --vram 8GiB --air-gapped --json prints categories, reasons and the verdict', async () => {
  const home = join(work, 'cli');
  const r = await cli(home, 'audit', '--features', 'code_interpreter,image_generation,actions', '--vram', '8GiB', '--air-gapped', '--json');
  assert.equal(r.code, 0, r.stderr);
  const rec = JSON.parse(r.stdout);
  assert.equal(rec.machine.vram_bytes, 8 * 1024 ** 3);
  assert.equal(rec.machine.vram_source, 'given');
  assert.equal(rec.request.air_gapped, true);
  assert.deepEqual(rec.request.features, ['code_interpreter', 'image_generation', 'actions']);
  const [aa] = rec.assistants;
  const caps = aa.capabilities;
  assert.deepEqual(caps.map((c) => c.id), ['instructions', 'code_interpreter', 'image_generation', 'actions']);
  assert.equal(byId(caps, 'instructions').category, 'ports');
  assert.equal(byId(caps, 'code_interpreter').category, 'hosts');
  assert.equal(byId(caps, 'actions').category, 'does_not_port');
  assert.match(byId(caps, 'actions').reason, /air-gapped/);
  for (const c of caps) assert.ok(c.reason.length > 40 && !/[{}]/.test(c.reason), `reason of ${c.id}: ${c.reason}`);
  assert.equal(aa.verdict.decision, 'move_in_part');
  assert.deepEqual(aa.verdict.stays_behind, ['actions']);
  assert.ok(aa.verdict.reasons.some((x) => x.deciding));
  assert.match(aa.economics.sum, /h of work .* against a subscription of 20\/month × 12 = 240/);

  // The text form says the same in words.
  const text = await cli(home, 'audit', '--features', 'vision', '--vram', '8GiB', '--ram', '32GiB');
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /Ports as-is/);
  assert.match(text.stdout, /Sum: /);

  // Bad input: usage errors with exit 2, nothing stored.
  assert.equal((await cli(home, 'audit')).code, 2);
  const badSize = await cli(home, 'audit', '--features', 'vision', '--vram', 'eight');
  assert.equal(badSize.code, 2);
  const badFeature = await cli(home, 'audit', '--features', 'telepathy', '--vram', '8GiB');
  assert.equal(badFeature.code, 2);
  assert.match(badFeature.stderr, /unknown feature "telepathy"/);
  const list = JSON.parse((await cli(home, 'audit', 'list', '--json')).stdout);
  assert.equal(list.length, 2);
  assert.equal(list[0].assistants[0].subject.features.includes('vision'), true, 'newest first');

  // Compare the two stored audits.
  const cmp = JSON.parse((await cli(home, 'audit', 'compare', list[1].id, list[0].id, '--json')).stdout);
  assert.equal(cmp.older.id, list[1].id);
  assert.ok(cmp.inputs.some((c) => c.field === 'Air-gapped' && c.from === 'yes' && c.to === 'no'));
});

test('rehome assistants import|export: the OpenAI object in, a Modelfile, Open WebUI JSON and a bundle out, the bundle back in losslessly', async () => {
  const home = join(work, 'io');
  const kfile = join(work, 'sales q3.csv');
  writeFileSync(kfile, 'region,revenue\nnorth,10\nsouth,20\n');
  const imp = await cli(home, 'assistants', 'import', fixture, '--knowledge', kfile, '--json');
  assert.equal(imp.code, 0, imp.stderr);
  const { assistant: a, warnings } = JSON.parse(imp.stdout);
  assert.equal(a.name, 'Quarterly Numbers');
  assert.equal(a.knowledge[0].sha256, createHash('sha256').update(readFileSync(kfile)).digest('hex'));
  assert.ok(a.knowledge[0].path.startsWith(join(home, 'knowledge', a.knowledge[0].sha256) + '/'), "copied into rehome's own knowledge library");
  assert.ok(warnings.some((w) => w.includes('vector_store_ids')));

  // A wrong type names the field.
  const bad = join(work, 'bad.json');
  writeFileSync(bad, '{"name": "x", "instructions": 42}');
  const badImp = await cli(home, 'assistants', 'import', bad);
  assert.equal(badImp.code, 1);
  assert.match(badImp.stderr, /instructions: expected a string, got number/);

  const audit = await cli(home, 'audit', '--assistant', a.id, '--vram', '12GiB', '--ram', '32GiB', '--data-local', '--json');
  assert.equal(audit.code, 0, audit.stderr);
  const rec = JSON.parse(audit.stdout);
  assert.equal(rec.assistants[0].subject.assistant_id, a.id);
  assert.equal(rec.assistants[0].verdict.decision, 'move_in_part'); // the action sends data out
  const cl = await cli(home, 'audit', 'checklist', a.id);
  assert.equal(cl.code, 0, cl.stderr);
  assert.match(cl.stdout, /1\. Check the machine/);

  const mf = await cli(home, 'assistants', 'export', a.id, '--format', 'modelfile', '--model', 'qwen2.5:7b');
  assert.equal(mf.code, 0, mf.stderr);
  assert.match(mf.stdout, /^FROM qwen2\.5:7b$/m);
  assert.ok(mf.stdout.includes(`SYSTEM """${a.instructions}"""`));
  const ow = await cli(home, 'assistants', 'export', a.id, '--format', 'openwebui', '--model', 'qwen2.5:7b');
  const [model] = JSON.parse(ow.stdout);
  assert.equal(model.base_model_id, 'qwen2.5:7b');
  assert.equal(model.params.system, a.instructions);

  const bundle = join(work, 'q.rehome.zip');
  const ex = await cli(home, 'assistants', 'export', a.id, '--format', 'bundle', '-o', bundle);
  assert.equal(ex.code, 0, ex.stderr);
  // Into another data directory, with the original file gone.
  rmSync(kfile);
  const other = join(work, 'other');
  const back = await cli(other, 'assistants', 'import', bundle, '--json');
  assert.equal(back.code, 0, back.stderr);
  const b = JSON.parse(back.stdout).assistant;
  assert.equal(b.id, a.id);
  const strip = (x) => ({ ...x, knowledge: x.knowledge.map((k) => ({ ...k, path: '' })) });
  assert.deepEqual(strip(b), strip(a));
  assert.equal(createHash('sha256').update(readFileSync(b.knowledge[0].path)).digest('hex'), a.knowledge[0].sha256);
  assert.ok(b.knowledge[0].path.startsWith(join(other, 'knowledge')));
});

test('the Audit screen: import, three columns with reasons, verdict, across view, history, comparison, checklist', async () => {
  const page = await openApp(browser, srv.url, { hash: '#/audit' });
  await page.getByTestId('history-empty').waitFor();

  // Import the GPT through the form: JSON pasted, a knowledge file uploaded.
  await page.getByTestId('import-toggle').click();
  await page.getByTestId('import-json').fill(readFileSync(fixture, 'utf8'));
  const kfile = join(work, 'notes.md');
  writeFileSync(kfile, '# Notes\nQ3 was good.\n');
  // A button opens the file input, which is hidden (WebKitGTK draws a visible one as a black box).
  assert.equal(await page.getByTestId('import-files').isVisible(), false, 'the knowledge file input shows');
  assert.equal(await page.getByTestId('import-json-file').isVisible(), false, 'the JSON file input shows');
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('import-choose').click()]);
  assert.equal(chooser.isMultiple(), true);
  await chooser.setFiles(kfile);
  await page.getByTestId('import-knowledge').filter({ hasText: 'notes.md' }).waitFor();
  await page.getByTestId('import-button').click();
  await page.getByTestId('import-notice').filter({ hasText: 'Imported “Quarterly Numbers” with 1 knowledge file' }).waitFor();
  assert.ok((await page.getByTestId('import-warning').count()) >= 2);
  const stored = await srv.call('ListAssistants');
  assert.equal(stored.length, 1);
  assert.equal(stored[0].knowledge[0].sha256, createHash('sha256').update(readFileSync(kfile)).digest('hex'));

  // Bad JSON names the field and stores nothing.
  await page.getByTestId('import-json').fill('{"name": "x", "tools": [{"type": 7}]}');
  await page.getByTestId('import-button').click();
  await page.getByTestId('import-error').filter({ hasText: 'tools[0].type: expected a string, got number' }).waitFor();
  assert.equal((await srv.call('ListAssistants')).length, 1);
  await page.getByTestId('import-toggle').click();

  // VRAM first: with detection off and no VRAM, the audit asks for it.
  await page.getByTestId('audit-detect').uncheck();
  await page.getByTestId('run-audit').click();
  await page.getByTestId('audit-error').filter({ hasText: 'Enter the GPU memory (VRAM)' }).waitFor();
  assert.equal(await page.getByTestId('audit-result').count(), 0);

  // The imported assistant is ticked; audit it on 8 GiB, air-gapped.
  assert.equal(await page.getByTestId('audit-assistant').first().isChecked(), true);
  await page.getByTestId('audit-vram').fill('8');
  await page.getByTestId('audit-ram').fill('32');
  await page.getByTestId('audit-airgapped').check();
  await page.getByTestId('run-audit').click();
  const result = page.getByTestId('audit-result');
  await result.waitFor();
  const first = await result.getAttribute('data-audit-id');
  const verdict = page.getByTestId('verdict');
  assert.equal(await verdict.getAttribute('data-decision'), 'move_in_part');
  assert.match(await verdict.innerText(), /Quarterly Numbers/);
  assert.match(await verdict.innerText(), /air-gapped/);
  const col = (c) => page.getByTestId('column-' + c);
  await col('ports').locator('[data-cap="instructions"]').waitFor();
  await col('hosts').locator('[data-cap="knowledge"]').waitFor();
  await col('hosts').locator('[data-cap="code_interpreter"]').waitFor();
  const action = col('does_not_port').locator('[data-cap="actions"]');
  await action.waitFor();
  assert.match(await action.innerText(), /air-gapped/);
  assert.match(await col('hosts').locator('[data-cap="code_interpreter"]').innerText(), /Local: rehome's sandbox/);
  assert.match(await page.getByTestId('economics').innerText(), /against a subscription of 20\/month/);
  await page.setViewportSize({ width: 1280, height: 2000 });
  await page.screenshot({ path: join(artifacts, 'browser-audit.png') });
  await page.setViewportSize({ width: 1280, height: 820 });

  // A second assistant, hand-ticked features, and the across view.
  await srv.call('CreateAssistant', { name: 'Illustrator', instructions: 'Draw.', capabilities: ['image_generation', 'vision'], starters: [], knowledge: [], actions: [] });
  await page.reload();
  await page.getByTestId('audit-all').check();
  await page.getByTestId('audit-detect').uncheck();
  await page.getByTestId('audit-vram').fill('24');
  await page.getByTestId('audit-ram').fill('64');
  await page.getByTestId('audit-subscription').fill('200');
  await page.getByTestId('run-audit').click();
  await page.getByTestId('across').waitFor();
  assert.equal(await page.getByTestId('audit-assistant-result').count(), 2);
  const visionRow = page.getByTestId('across-row').filter({ has: page.locator('td', { hasText: 'Vision' }) });
  assert.equal(await visionRow.count(), 1);
  // The Illustrator needs vision: on 24 GiB it runs on a model that reads
  // images, vision ports, and the alternatives are shown with their cost.
  const ill = page.locator('[data-testid="audit-assistant-result"][data-name="Illustrator"]');
  assert.match(await ill.getByTestId('chosen-model').innerText(), /Gemma 3 27B|Qwen2\.5 VL/);
  assert.ok((await ill.getByTestId('model-alternative').count()) >= 2);
  assert.equal(await ill.locator('[data-testid="model-alternative"][data-chosen="true"]').count(), 1);
  assert.equal(await ill.getByTestId('column-hosts').locator('[data-cap="vision"]').count(), 1); // rehome sends the images (issue 33)
  assert.match(await ill.getByTestId('choice-reason').innerText(), /^Chose /);
  const second = await page.getByTestId('audit-result').getAttribute('data-audit-id');
  assert.notEqual(second, first);

  // History, newest first, and the comparison of the two.
  const rows = page.getByTestId('history-row');
  await rows.nth(1).waitFor();
  assert.equal(await rows.count(), 2);
  assert.equal(await rows.nth(0).getAttribute('data-audit-id'), second);
  await rows.nth(0).getByTestId('compare-check').check();
  await rows.nth(1).getByTestId('compare-check').check();
  await page.getByTestId('compare-button').click();
  const cmp = page.getByTestId('comparison');
  await cmp.waitFor();
  const inputs = await page.getByTestId('comparison-input').allInnerTexts();
  assert.ok(inputs.some((t) => /VRAM\s+8 GiB\s+24 GiB/.test(t)), inputs.join(' | '));
  assert.ok(inputs.some((t) => /Air-gapped\s+yes\s+no/.test(t)), inputs.join(' | '));
  const qn = page.getByTestId('comparison-assistant').filter({ hasText: 'Quarterly Numbers' });
  const actionChange = qn.getByTestId('comparison-capability').filter({ hasText: 'Actions' });
  assert.match(await actionChange.innerText(), /Does not port → rehome hosts it .*no longer: the machine is air-gapped/);
  assert.equal(await page.getByTestId('comparison-assistant').filter({ hasText: 'Illustrator' }).getAttribute('data-status'), 'added');
  await cmp.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, 'browser-audit-compare.png') });

  // The checklist and an export for the first assistant.
  await page.getByTestId('audit-assistant-result').filter({ hasText: 'Quarterly Numbers' }).getByTestId('checklist-button').click();
  await page.getByTestId('checklist').waitFor();
  assert.ok((await page.getByTestId('checklist-step').count()) >= 6);
  await page.getByTestId('export-model').fill('qwen2.5:14b');
  await page.getByTestId('export-modelfile').click();
  const content = await page.getByTestId('export-content').innerText();
  assert.match(content, /^FROM qwen2\.5:14b$/m);
  assert.match(content, /SYSTEM """You are a careful financial analyst\./);

  // History survives a reload; the newest audit shows.
  await page.reload();
  await page.getByTestId('audit-result').waitFor();
  assert.equal(await page.getByTestId('audit-result').getAttribute('data-audit-id'), second);
  assert.deepEqual(page.jsErrors, []);
});
