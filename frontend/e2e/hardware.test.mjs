// The Hardware screen in a real browser against a real `rehome serve`:
// first on this machine (a VM: CPU only), then on recorded machines from
// backend/hardware/testdata, with GHW_CHROOT pointing detection at the
// recorded sysfs/procfs tree and REHOME_NVIDIA_SMI at a script that prints
// the recorded nvidia-smi answer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, mkdtempSync, readFileSync, existsSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServe, launchBrowser, openApp, artifacts } from './harness.mjs';

const fixtures = resolve('../backend/hardware/testdata');
const scratch = mkdtempSync(join(tmpdir(), 'rehome-hw-e2e-'));
let browser;

before(async () => {
  browser = await launchBrowser();
  mkdirSync(artifacts, { recursive: true });
});
after(async () => {
  await browser?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Starts `rehome serve` on this machine (no name) or on a recorded one. */
async function serveOn(machine) {
  const saved = { GHW_CHROOT: process.env.GHW_CHROOT, REHOME_NVIDIA_SMI: process.env.REHOME_NVIDIA_SMI };
  delete process.env.GHW_CHROOT;
  delete process.env.REHOME_NVIDIA_SMI;
  if (machine) {
    const root = join(fixtures, machine);
    process.env.GHW_CHROOT = root;
    const answer = join(root, 'nvidia-smi.txt');
    if (existsSync(answer)) {
      const script = join(scratch, `nvidia-smi-${machine}`);
      writeFileSync(script, `#!/bin/sh\nexec cat '${answer}'\n`);
      chmodSync(script, 0o755);
      process.env.REHOME_NVIDIA_SMI = script;
    }
  }
  try {
    return await startServe();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}


/** A screenshot of the whole screen: the app scrolls inside <main>, so
 * grow the viewport to the content first. */
async function shot(page, name) {
  const height = await page.evaluate(() => document.querySelector('main').scrollHeight);
  await page.setViewportSize({ width: 1280, height: Math.min(Math.max(height + 40, 820), 6000) });
  await page.screenshot({ path: join(artifacts, name) });
  await page.setViewportSize({ width: 1280, height: 820 });
}

// The UI's rule for sizes (src/lib/format.ts): one decimal, dropped when zero.
const gib = (b) => `${Math.round((b / 1024 ** 3) * 10) / 10} GiB`;

function row(page, id) {
  return page.locator(`[data-testid="fit-row"][data-model="${id}"]`);
}

async function verdictOf(page, id) {
  return row(page, id).getAttribute('data-verdict');
}

/** A tiny but valid GGUF v3 file (2-layer llama), as llama.cpp writes one. */
function writeTinyGGUF(path) {
  const parts = [];
  const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
  const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
  const str = (s) => { u64(Buffer.byteLength(s)); parts.push(Buffer.from(s)); };
  const kvs = [
    ['general.architecture', 8, 'llama'], ['general.name', 8, 'Tiny e2e llama'], ['general.file_type', 4, 1],
    ['llama.context_length', 4, 4096], ['llama.embedding_length', 4, 256], ['llama.block_count', 4, 2],
    ['llama.feed_forward_length', 4, 512], ['llama.attention.head_count', 4, 4], ['llama.attention.head_count_kv', 4, 2],
    ['llama.vocab_size', 4, 64],
  ];
  const tensors = [['token_embd.weight', [256, 64]], ['output.weight', [256, 64]], ['output_norm.weight', [256]]];
  for (const l of [0, 1]) {
    for (const [n, d] of [['attn_q', [256, 256]], ['attn_k', [256, 128]], ['attn_v', [256, 128]], ['attn_output', [256, 256]],
      ['ffn_gate', [256, 512]], ['ffn_up', [256, 512]], ['ffn_down', [512, 256]]]) tensors.push([`blk.${l}.${n}.weight`, d]);
  }
  parts.push(Buffer.from('GGUF'));
  u32(3);
  u64(tensors.length);
  u64(kvs.length);
  for (const [k, t, v] of kvs) {
    str(k);
    u32(t);
    if (t === 8) str(v);
    else u32(v);
  }
  let off = 0;
  for (const [name, dims] of tensors) {
    str(name);
    u32(dims.length);
    dims.forEach(u64);
    const f32 = dims.length === 1;
    u32(f32 ? 0 : 1); // F32 norms, F16 weights
    u64(off);
    const bytes = dims.reduce((a, b) => a * b, 1) * (f32 ? 4 : 2);
    off += Math.ceil(bytes / 32) * 32;
  }
  let head = Buffer.concat(parts);
  head = Buffer.concat([head, Buffer.alloc((32 - (head.length % 32)) % 32)]);
  writeFileSync(path, Buffer.concat([head, Buffer.alloc(off)]));
}

test('this machine (CPU only on the build VM): its real CPU and RAM, and the fit table', async () => {
  const srv = await serveOn(null);
  try {
    const cpuModel = readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m)?.[1]?.trim();
    const memTotal = Number(readFileSync('/proc/meminfo', 'utf8').match(/^MemTotal:\s+(\d+) kB/m)[1]) * 1024;

    const report = await srv.call('Hardware', false);
    assert.equal(report.memory.total_bytes, memTotal);
    assert.equal(report.cpu_only, report.gpus.length === 0);
    const table = await srv.call('FitTable', { context: 8192 });

    const page = await openApp(browser, srv.url, { hash: '#/hardware' });
    await page.getByTestId('machine').waitFor();
    if (cpuModel) assert.equal((await page.getByTestId('cpu-model').textContent()).trim(), cpuModel);
    assert.equal((await page.getByTestId('ram-total').textContent()).trim(), gib(memTotal));
    assert.equal(await page.getByTestId('gpu-card').count(), report.gpus.length);
    if (report.cpu_only) {
      // The build VM: no GPU, said plainly, not as an error.
      await page.getByTestId('cpu-only').waitFor();
      assert.equal(await page.getByTestId('hw-error').count(), 0);
    }

    // The table says what Go says, model by model.
    await row(page, 'llama-3.1-8b-instruct').waitFor();
    for (const r of table.rows) {
      assert.equal(await verdictOf(page, r.model.id), r.result.verdict, r.model.id);
    }
    if (report.cpu_only && memTotal < 128 * 1024 ** 3) {
      assert.equal(await verdictOf(page, 'llama-3.1-8b-instruct'), 'cpu');
      assert.equal(await verdictOf(page, 'qwen3-235b-a22b'), 'none');
      // A CPU-only row says how fast, from the bytes a token reads (issue 31, item 9).
      assert.match(await row(page, 'llama-3.1-8b-instruct').getByTestId('verdict').textContent(), /^CPU only · about [\d.]+–[\d.]+ tokens\/s$/);
      if (table.best.length) assert.match(await page.getByTestId('best-item').first().textContent(), /tokens\/s/);
    }
    const items = page.getByTestId('best-item');
    assert.equal(await items.count(), table.best.length);
    if (table.best.length) assert.equal(await items.first().getAttribute('data-model'), table.best[0].model.id);

    // The arithmetic, and the context and KV cache controls.
    await page.getByTestId('quant-select').selectOption('Q4_K_M');
    await page.locator('[data-testid="fit-row"][data-model="llama-3.1-8b-instruct"] td:nth-child(3)').filter({ hasText: 'Q4_K_M' }).waitFor();
    await row(page, 'llama-3.1-8b-instruct').locator('button.link').click();
    const bd = page.getByTestId('fit-breakdown');
    await bd.filter({ hasText: '2 (K and V) × 32 layers × 8192 tokens × 8 KV heads × 128 head dim × 2 bytes (f16)' }).waitFor();
    assert.equal((await bd.locator('[data-term="kv_cache"] td.num').textContent()).trim(), '1 GiB');
    assert.match(await bd.textContent(), /Weights \(Q4_K_M\)\s*4\.6 GiB/);
    if (report.cpu_only) assert.match(await bd.getByTestId('cpu-speed').textContent(), /On the CPU alone: about .* tokens\/s — it reads about [\d.]+ GB per token; at 20 to 40 GB\/s/);
    await page.getByTestId('ctx-slider').fill('4'); // 32768
    await bd.filter({ hasText: '× 32768 tokens ×' }).waitFor();
    assert.equal((await bd.locator('[data-term="kv_cache"] td.num').textContent()).trim(), '4 GiB');
    assert.equal((await page.getByTestId('ctx-value').textContent()).trim(), '32,768');
    await page.getByTestId('kv-select').selectOption('q8_0');
    await bd.filter({ hasText: '34/32 bytes (q8_0)' }).waitFor();
    assert.equal((await bd.locator('[data-term="kv_cache"] td.num').textContent()).trim(), '2.1 GiB');
    await page.getByTestId('kv-select').selectOption('f16');
    await page.getByTestId('ctx-input').fill('8192');
    await page.getByTestId('ctx-input').press('Enter');
    await bd.filter({ hasText: '× 8192 tokens ×' }).waitFor();
    await shot(page, 'browser-hardware-cpu-only.png');

    // Plan a purchase: a 24 GiB card and 64 GiB of RAM.
    await page.getByTestId('plan-toggle').check();
    await page.getByTestId('plan-vram').fill('24');
    await page.getByTestId('plan-ram').fill('64');
    await page.getByTestId('fit-machine').filter({ hasText: 'planned: 24 GiB VRAM on 1 GPU, 64 GiB RAM' }).waitFor();
    await row(page, 'llama-3.3-70b-instruct').and(page.locator('[data-verdict="partial"]')).waitFor();
    assert.equal(await verdictOf(page, 'llama-3.1-8b-instruct'), 'gpu');
    assert.match(await row(page, 'llama-3.3-70b-instruct').getByTestId('verdict').textContent(), /^\d+\/80 layers on GPU$/);
    await page.getByTestId('quant-select').selectOption('auto');
    await page.getByTestId('best-item').first().and(page.locator('[data-model="qwen2.5-32b-instruct"]')).waitFor();
    await shot(page, 'browser-hardware-plan.png');

    // A bad figure is refused in words and the table stays.
    await page.getByTestId('plan-vram').fill('-5');
    await page.getByTestId('plan-error').filter({ hasText: 'VRAM' }).waitFor();
    assert.equal(await verdictOf(page, 'llama-3.1-8b-instruct'), 'gpu');
    await page.getByTestId('plan-toggle').uncheck();
    await page.getByTestId('fit-machine').filter({ hasText: 'this machine: CPU only' }).waitFor();

    // A local .gguf file: its header, no download; and a file that is not one.
    const gguf = join(scratch, 'tiny-e2e-F16.gguf');
    writeTinyGGUF(gguf);
    await page.getByTestId('gguf-path').fill(gguf);
    await page.getByTestId('gguf-fit').click();
    const gb = page.getByTestId('gguf-breakdown');
    await gb.filter({ hasText: 'tensor sizes read from the GGUF file' }).waitFor();
    assert.match(await page.locator('.gguf').textContent(), /Tiny e2e llama \(F16/);
    await page.getByTestId('gguf-path').fill('/etc/hostname');
    await page.getByTestId('gguf-fit').click();
    await page.getByTestId('gguf-error').filter({ hasText: 'not a readable GGUF' }).waitFor();

    // Detect again: a new detection.
    const before = report.detected_at;
    await page.getByTestId('hw-refresh').click();
    await page.getByTestId('hw-refresh').filter({ hasText: 'Detect again' }).waitFor();
    const after = await srv.call('Hardware', false);
    assert.notEqual(after.detected_at, before, 'refresh did not detect again');
    assert.deepEqual(page.jsErrors, []);
    await page.close();
  } finally {
    await srv.stop();
  }
});

test('a desktop with an RTX 3090: one VRAM bar, measured by nvidia-smi', async () => {
  const srv = await serveOn('nvidia-rtx3090');
  try {
    const page = await openApp(browser, srv.url, { hash: '#/hardware' });
    const card = page.getByTestId('gpu-card');
    await card.first().waitFor();
    assert.equal(await card.count(), 1);
    assert.equal(await page.getByTestId('cpu-only').count(), 0);
    assert.equal((await page.getByTestId('cpu-model').textContent()).trim(), 'AMD Ryzen 9 5900X 12-Core Processor');
    assert.match(await card.textContent(), /NVIDIA GeForce RTX 3090/);
    assert.equal((await card.getByTestId('vram-source').textContent()).trim(), 'measured by nvidia-smi');
    assert.match(await card.getByTestId('vram-label').textContent(), /^24 GiB VRAM, 22\.6 GiB free/);
    const fill = await card.locator('[data-testid="vram-bar"] .fill').evaluate((e) => parseFloat(e.style.width));
    assert.ok(Math.abs(fill - (100 * (24576 - 23141)) / 24576) < 0.1, `bar at ${fill}%`);
    await row(page, 'qwen2.5-32b-instruct').waitFor();
    assert.equal(await verdictOf(page, 'qwen2.5-32b-instruct'), 'gpu');
    assert.equal(await verdictOf(page, 'llama-3.3-70b-instruct'), 'partial');
    await page.getByTestId('fit-machine').filter({ hasText: 'this machine: 24 GiB VRAM on 1 GPU' }).waitFor();
    await row(page, 'llama-3.3-70b-instruct').locator('button.link').click();
    await page.getByTestId('fit-breakdown').filter({ hasText: 'layers offloaded to the GPU' }).waitFor();
    await shot(page, 'browser-hardware-rtx3090.png');
    assert.deepEqual(page.jsErrors, []);
    await page.close();
  } finally {
    await srv.stop();
  }
});

test('a server with two L4s and BMC graphics, without pci.ids', async () => {
  const srv = await serveOn('nvidia-2x-l4');
  try {
    const page = await openApp(browser, srv.url, { hash: '#/hardware' });
    const cards = page.getByTestId('gpu-card');
    await cards.nth(1).waitFor();
    assert.equal(await cards.count(), 2);
    assert.match(await cards.nth(1).getByTestId('vram-label').textContent(), /^22\.5 GiB VRAM, 5 GiB free/);
    assert.match(await page.getByTestId('other-displays').textContent(), /ASPEED device 0x2000/);
    const note = page.getByTestId('hw-note').filter({ hasText: 'apt-get install pci.ids' });
    await note.waitFor();
    // The note's commands are code, not raw backticks (issue 31).
    assert.equal(await note.locator('code').first().textContent(), 'sudo apt-get install pci.ids');
    assert.doesNotMatch(await note.textContent(), /`/);
    await page.getByTestId('fit-machine').filter({ hasText: '45 GiB VRAM on 2 GPUs' }).waitFor();
    await shot(page, 'browser-hardware-2x-l4.png');
    await page.close();
  } finally {
    await srv.stop();
  }
});

test('a DGX Spark whose nvidia-smi answers [N/A]: unified memory, said so', async () => {
  const srv = await serveOn('nvidia-gb10-na');
  try {
    const page = await openApp(browser, srv.url, { hash: '#/hardware' });
    const card = page.getByTestId('gpu-card');
    await card.waitFor();
    assert.equal((await card.getByTestId('vram-source').textContent()).trim(), 'shared with system RAM (unified)');
    assert.match(await card.textContent(), /\[N\/A\]/);
    await row(page, 'gpt-oss-120b').waitFor();
    assert.equal(await verdictOf(page, 'gpt-oss-120b'), 'gpu');
    await page.close();
  } finally {
    await srv.stop();
  }
});

test('an AMD card: VRAM read from amdgpu sysfs', async () => {
  const srv = await serveOn('amd-rx7900xtx');
  try {
    const page = await openApp(browser, srv.url, { hash: '#/hardware' });
    const card = page.getByTestId('gpu-card');
    await card.waitFor();
    assert.equal((await card.getByTestId('vram-source').textContent()).trim(), 'read from the amdgpu driver');
    assert.match(await card.textContent(), /Navi 31 \[Radeon RX 7900 XT\/7900 XTX\]/);
    await page.close();
  } finally {
    await srv.stop();
  }
});
