// Types and helpers of the Hardware screen: the detected machine (Go's
// backend/hardware.Report) and the model fit (backend/models).
import { bytes } from './format';
import type { app, hardware, models } from './gen/api.gen';

export type GPU = hardware.GPU;
export type HardwareReport = hardware.Report;
export type Model = models.Model;
export type Term = models.Term;
export type Machine = models.Machine;
export type FitResult = models.FitResult;
export type Pick = models.Pick;
export type FitTable = models.Table;
export type FitOptions = app.FitChoices;
export type TableRequest = models.TableRequest;

export type VRAMSource = 'nvml' | 'nvidia-smi' | 'amdgpu sysfs' | 'unified' | 'unknown';





export type Verdict = 'gpu' | 'partial' | 'cpu' | 'none';






/** A machine the user plans to buy, as the screen's form holds it. */
export interface Plan {
  on: boolean;
  vramGiB: number;
  ramGiB: number;
  gpus: number;
  unified: boolean;
}


/** "24 GiB", "23.7 GiB", "512 MiB": memory as the UI shows every size (format.ts). */
export const gib = bytes;

/** "8.03B", "494M" parameters. */
export function params(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(n >= 1e10 ? 1 : 2)}B`;
  return `${Math.round(n / 1e6)}M`;
}

/** "8K", "128K" (1K = 1024 tokens), "40960" when not a round number. */
export function tokens(n: number): string {
  if (n <= 0) return '—';
  if (n % 1024 === 0) return `${n / 1024}K`;
  return n.toLocaleString('en-US');
}

/** How sure the figure is, in the user's words. */
export function sourceLabel(g: GPU): string {
  switch (g.vram_source) {
    case 'nvml':
      return 'measured by NVML';
    case 'nvidia-smi':
      return 'measured by nvidia-smi';
    case 'amdgpu sysfs':
      return 'read from the amdgpu driver';
    case 'unified':
      return 'shared with system RAM (unified)';
    default:
      return 'unknown';
  }
}

/** Share of VRAM in use, 0..1, or null when the driver does not say. */
export function usedFraction(g: GPU): number | null {
  if (!g.vram_free_known || g.vram_total_bytes <= 0) return null;
  return Math.min(1, Math.max(0, (g.vram_total_bytes - g.vram_free_bytes) / g.vram_total_bytes));
}

export const verdictLabels: Record<Verdict, string> = {
  gpu: 'Fits in VRAM',
  partial: 'Partly offloaded',
  cpu: 'CPU only',
  none: 'Does not fit',
};

/** The short verdict for a table cell: "Fits in VRAM", "45/80 layers on GPU". */
export function verdictShort(r: FitResult): string {
  if (r.verdict === 'partial') return `${r.layers_on_gpu}/${r.layers} layers on GPU`;
  if (r.verdict === 'gpu' && r.machine.unified) return 'Fits (unified)';
  if (r.verdict === 'cpu' && r.cpu_speed) return `CPU only · ${speedWords(r.cpu_speed)}`;
  return verdictLabels[r.verdict as Verdict] ?? r.verdict_text;
}

/** A CPU speed estimate in words: "about 1.7–3.4 tokens/s" (as Go's CPUSpeed.Words). */
export function speedWords(s: { low: number; high: number }): string {
  const n = (v: number) => (v >= 10 ? v.toFixed(0) : v.toFixed(1));
  return `about ${n(s.low)}–${n(s.high)} tokens/s`;
}

/** Context lengths the slider steps through. */
export const contextSteps = [2048, 4096, 8192, 16384, 32768, 65536, 131072];

/** The slider position for a context (the nearest step at or below it). */
export function stepIndex(ctx: number): number {
  let i = 0;
  contextSteps.forEach((s, j) => {
    if (s <= ctx) i = j;
  });
  return i;
}

/** Checks a "plan a purchase" entry; returns a message, or '' when fine. */
export function planError(p: Plan): string {
  if (!p.on) return '';
  if (!Number.isFinite(p.vramGiB) || p.vramGiB < 0 || p.vramGiB > 4096) return 'VRAM: give a number of GiB between 0 and 4096.';
  if (!Number.isFinite(p.ramGiB) || p.ramGiB <= 0 || p.ramGiB > 16384) return 'RAM: give a number of GiB above 0.';
  if (!Number.isInteger(p.gpus) || p.gpus < 1 || p.gpus > 16) return 'GPUs: between 1 and 16.';
  if (p.unified && p.vramGiB > p.ramGiB) return 'Unified memory cannot exceed the RAM it is part of.';
  return '';
}

/** The request for Go's FitTable (and, with a model, Fit). */
export function tableRequest(ctx: number, kv: string, quant: string, plan: Plan): TableRequest {
  const req: TableRequest = { context: ctx, kv_cache: kv, quant: quant === 'auto' ? '' : quant, best: 5 };
  if (plan.on) {
    req.vram = `${plan.vramGiB}GiB`;
    req.ram = `${plan.ramGiB}GiB`;
    req.gpus = plan.gpus;
    req.unified = plan.unified;
  }
  return req;
}

/** Rows filtered by a search text over id, name, family and tags. */
export function filterRows<T extends { model: Model }>(rows: T[], search: string): T[] {
  const q = search.trim().toLowerCase();
  if (!q) return rows;
  return rows.filter((r) =>
    [r.model.id, r.model.name, r.model.family, ...r.model.tags].some((s) => s.toLowerCase().includes(q)),
  );
}
