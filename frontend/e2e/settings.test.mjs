// The Settings screen's layout in a real browser against `rehome serve`:
// every card (the screen's own and those of its components: model
// servers, appearance, memory, browsing, MCP…) is one width, left-aligned
// with the others, with the same gap between each two, none touching, at
// the window's default size and at its smallest (issue 31's "Settings
// cards of different widths, two touching"). Podman that answers is
// "Found" while the image is still missing, and the image can be loaded.
//
// Screenshots: $ARTIFACTS/settings-1280x800.png, settings-900x620.png (the
// window) and settings-cards-*.png (the whole column, the window as tall).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startServe, launchBrowser, artifacts } from './harness.mjs';

let srv, browser;
before(async () => {
  srv = await startServe();
  browser = await launchBrowser();
  mkdirSync(artifacts, { recursive: true });
});
after(async () => {
  await browser?.close();
  await srv?.stop();
});

for (const [width, height] of [[1280, 800], [900, 620]]) {
  test(`Settings cards: one width, even gaps at ${width}×${height}`, async () => {
    await srv.call('DismissFirstRun').catch(() => {}); // the checklist's dialog would cover the screenshot
    const page = await browser.newPage({ viewport: { width, height } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(srv.url);
    await page.evaluate(() => (location.hash = '#/settings'));
    for (const id of ['sandbox-settings', 'model-servers', 'appearance', 'memory-settings', 'browsing-settings', 'mcp-settings', 'firstrun-settings']) {
      await page.getByTestId(id).waitFor();
    }
    await page.waitForTimeout(1500); // the cards' contents arrive (status, lists)
    // Podman that answers is "Found" even while the image is missing (that is the image row's to say).
    const st = await srv.call('SandboxStatus');
    if (st.podman) {
      await page.getByTestId('sandbox-podman').filter({ hasText: 'Found' }).waitFor({ timeout: 30000 });
      assert.doesNotMatch(await page.getByTestId('sandbox-podman').innerText(), /Not found/);
      if (!st.image?.present) await page.getByTestId('load-image').waitFor();
    }
    const boxes = await page.$$eval('[data-testid=settings-cards] > *', (els) =>
      els.filter((e) => e.getBoundingClientRect().height > 0).map((e) => {
        const r = e.getBoundingClientRect();
        return { cls: e.className, id: e.dataset.testid ?? e.getAttribute('aria-labelledby') ?? '', x: r.x, w: r.width, top: r.top + scrollY, bottom: r.bottom + scrollY };
      }),
    );
    assert.ok(boxes.length >= 9, `only ${boxes.length} cards: ${JSON.stringify(boxes)}`);
    for (const b of boxes) {
      assert.match(b.cls, /\bcard\b/, `${b.id} is in the column of cards but no card`);
      assert.ok(Math.abs(b.x - boxes[0].x) < 1 && Math.abs(b.w - boxes[0].w) < 1, `${b.id}: x ${b.x} width ${b.w}, the first card: x ${boxes[0].x} width ${boxes[0].w}`);
    }
    const gaps = boxes.slice(1).map((b, i) => b.top - boxes[i].bottom);
    for (const [i, g] of gaps.entries()) assert.ok(Math.abs(g - gaps[0]) < 1 && g >= 12, `gap ${g} px between ${boxes[i].id} and ${boxes[i + 1].id} (the first is ${gaps[0]} px)`);
    // The column fits the window: no card wider than the content area.
    const main = await page.evaluate(() => document.documentElement.clientWidth);
    assert.ok(boxes[0].x + boxes[0].w <= main, `the cards end at ${boxes[0].x + boxes[0].w} px of ${main}`);
    await page.screenshot({ path: join(artifacts, `settings-${width}x${height}.png`) });
    // The whole column, in a window as wide and tall enough to hold it (the screen scrolls inside the shell).
    await page.setViewportSize({ width, height: Math.ceil(boxes[boxes.length - 1].bottom) + 40 });
    await page.screenshot({ path: join(artifacts, `settings-cards-${width}x${height}.png`) });
    assert.deepEqual(errors, []);
    await page.close();
  });
}
