// The Code Interpreter's room for output (issue 31, item 10): at 1280×800
// the runs' pane was ~300 px and at 900×620 ~110 px, under a preview, a
// row of analyses, the editor and a Run row. The analyses now sit on the
// Run row, the sandbox pill's limits fold into its title on a narrow
// window (the head stays one row), a short window starts with a shorter
// preview; the editor and Run stay inside the window.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, launchBrowser, artifacts } from './harness.mjs';

let srv, browser, dir;
before(async () => {
  srv = await startServe();
  browser = await launchBrowser();
  dir = mkdtempSync(join(tmpdir(), 'rehome-codelayout-'));
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  rmSync(dir, { recursive: true, force: true });
});

for (const [w, h, least] of [
  [1280, 800, 320],
  [900, 620, 190],
]) {
  test(`at ${w}×${h} the runs' pane has at least ${least} px, and the editor, Run and the analyses are in the window`, async () => {
    const csv = join(dir, `sales-${w}.csv`);
    writeFileSync(csv, 'region,units,price\n' + Array.from({ length: 200 }, (_, i) => `r${i % 4},${i},${i * 1.5}`).join('\n'));
    const ctx = await browser.newContext({ viewport: { width: w, height: h } });
    const page = await ctx.newPage();
    await page.goto(srv.url);
    await page.evaluate(() => (location.hash = '#/code'));
    await page.setInputFiles('[data-testid=file-input]', csv);
    await page.getByTestId('preview-table').waitFor({ timeout: 15000 });
    // A run, so the pane holds a cell (and the Run row is back after it).
    await page.getByTestId('run').waitFor();
    const box = async (sel) => (await page.locator(sel).first().boundingBox()) ?? assert.fail(`${sel} is not shown`);
    const nb = await box('[data-testid=notebook]');
    const run = await box('[data-testid=run]');
    const quick = await box('[data-testid=analysis-quicklook]');
    const ed = await box('.cm-editor');
    const pill = await box('[data-testid=sandbox-pill]');
    const h1 = await box('h1');
    const chip = await box('[data-testid=file-chip]');
    await page.screenshot({ path: join(artifacts, `browser-code-layout-${w}x${h}.png`) });
    assert.ok(nb.height >= least, `the runs' pane is ${Math.round(nb.height)} px high`);
    for (const [name, b] of Object.entries({ run, quick, ed })) assert.ok(b.y + b.height <= h, `${name} ends at ${Math.round(b.y + b.height)} px, below the window's ${h}`);
    assert.ok(Math.abs(pill.y + pill.height / 2 - (h1.y + h1.height / 2)) < 12, 'the sandbox pill wrapped under the title');
    assert.ok(chip.height < 40, `the file's chip wrapped to ${Math.round(chip.height)} px`);
    assert.ok(Math.abs(quick.y - run.y) < 12, 'the analyses are not on the Run row');
    await ctx.close();
  });
}
