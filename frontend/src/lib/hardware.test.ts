import { describe, expect, it } from 'vitest';
import {
  type FitResult,
  type GPU,
  type Model,
  contextSteps,
  filterRows,
  gib,
  params,
  planError,
  sourceLabel,
  stepIndex,
  tableRequest,
  tokens,
  usedFraction,
  verdictShort,
  speedWords,
} from './hardware';

const gpu = (over: Partial<GPU>): GPU => ({
  index: 0, vendor: 'NVIDIA', vendor_id: '10de', product: 'NVIDIA GeForce RTX 3090', product_id: '2204',
  pci_address: '0000:0b:00.0', class: 'VGA compatible controller', driver: 'nvidia',
  vram_total_bytes: 24576 * 2 ** 20, vram_free_bytes: 23141 * 2 ** 20, vram_free_known: true,
  unified: false, vram_source: 'nvidia-smi', vram_detail: 'measured by nvidia-smi', ...over,
});

describe('hardware helpers', () => {
  it('writes memory in GiB', () => {
    expect(gib(24 * 1024 ** 3)).toBe('24 GiB');
    expect(gib(25753026560)).toBe('24 GiB');
    expect(gib(512 * 1024 ** 2)).toBe('512 MiB');
    expect(gib(-1)).toBe('—');
  });
  it('writes parameters and tokens', () => {
    expect(params(8030261248)).toBe('8.03B');
    expect(params(70553706496)).toBe('70.6B');
    expect(params(494032768)).toBe('494M');
    expect(tokens(8192)).toBe('8K');
    expect(tokens(131072)).toBe('128K');
    expect(tokens(40960)).toBe('40K');
    expect(tokens(20736)).toBe('20,736');
    expect(tokens(0)).toBe('—');
  });
  it('says where a VRAM figure came from', () => {
    expect(sourceLabel(gpu({}))).toBe('measured by nvidia-smi');
    expect(sourceLabel(gpu({ vram_source: 'nvml' }))).toBe('measured by NVML');
    expect(sourceLabel(gpu({ vram_source: 'amdgpu sysfs' }))).toBe('read from the amdgpu driver');
    expect(sourceLabel(gpu({ vram_source: 'unified' }))).toBe('shared with system RAM (unified)');
    expect(sourceLabel(gpu({ vram_source: 'unknown' }))).toBe('unknown');
  });
  it('fills the VRAM bar only with what the driver reports', () => {
    expect(usedFraction(gpu({}))).toBeCloseTo((24576 - 23141) / 24576);
    expect(usedFraction(gpu({ vram_free_known: false }))).toBeNull();
    expect(usedFraction(gpu({ vram_total_bytes: 0 }))).toBeNull();
  });
  it('shortens verdicts', () => {
    const r = { verdict: 'partial', layers_on_gpu: 45, layers: 80, machine: { unified: false } } as FitResult;
    expect(verdictShort(r)).toBe('45/80 layers on GPU');
    expect(verdictShort({ ...r, verdict: 'gpu' })).toBe('Fits in VRAM');
    expect(verdictShort({ ...r, verdict: 'gpu', machine: { ...r.machine, unified: true } })).toBe('Fits (unified)');
    expect(verdictShort({ ...r, verdict: 'none' })).toBe('Does not fit');
    expect(verdictShort({ ...r, verdict: 'cpu' })).toBe('CPU only');
    const cpu = { ...r, verdict: 'cpu', cpu_speed: { read_bytes: 14.9e9, low: 1.68, high: 3.36, basis: '' } } as FitResult;
    expect(verdictShort(cpu)).toBe('CPU only · about 1.7–3.4 tokens/s');
    expect(speedWords({ low: 12.4, high: 24.8 })).toBe('about 12–25 tokens/s');
  });
  it('steps the context slider', () => {
    expect(contextSteps[stepIndex(8192)]).toBe(8192);
    expect(contextSteps[stepIndex(10000)]).toBe(8192);
    expect(stepIndex(100)).toBe(0);
    expect(contextSteps[stepIndex(1e9)]).toBe(131072);
  });
  it('checks and sends a planned machine', () => {
    const plan = { on: true, vramGiB: 24, ramGiB: 64, gpus: 1, unified: false };
    expect(planError(plan)).toBe('');
    expect(planError({ ...plan, vramGiB: -1 })).toMatch(/VRAM/);
    expect(planError({ ...plan, ramGiB: 0 })).toMatch(/RAM/);
    expect(planError({ ...plan, gpus: 0 })).toMatch(/GPUs/);
    expect(planError({ ...plan, unified: true, vramGiB: 96 })).toMatch(/Unified/);
    expect(planError({ ...plan, on: false, vramGiB: NaN })).toBe('');
    expect(tableRequest(8192, 'f16', 'auto', plan)).toEqual({
      context: 8192, kv_cache: 'f16', quant: '', best: 5, vram: '24GiB', ram: '64GiB', gpus: 1, unified: false,
    });
    expect(tableRequest(4096, 'q8_0', 'Q4_K_M', { ...plan, on: false })).toEqual({ context: 4096, kv_cache: 'q8_0', quant: 'Q4_K_M', best: 5 });
  });
  it('filters the table', () => {
    const m = (id: string, tags: string[]) => ({ model: { id, name: id, family: 'x', tags } as unknown as Model });
    const rows = [m('qwen2.5-coder-7b-instruct', ['coder']), m('llama-3.1-8b-instruct', ['chat'])];
    expect(filterRows(rows, 'coder').length).toBe(1);
    expect(filterRows(rows, ' LLAMA ').length).toBe(1);
    expect(filterRows(rows, '').length).toBe(2);
  });
});
