import { describe, expect, it } from 'vitest';
import {
  type Alternative,
  type AssistantAudit,
  type AuditRecord,
  type AuditForm,
  acrossCell,
  columns,
  costText,
  emptyForm,
  formFrom,
  formProblem,
  gib,
  headlineRest,
  linkHash,
  modelText,
  assistantModel,
  needsText,
  alternativeText,
  toRequest,
} from './audit';

function form(change: Partial<AuditForm>): AuditForm {
  return { ...emptyForm(), ...change };
}

describe('formProblem', () => {
  it('asks what to audit', () => {
    expect(formProblem(form({}))).toMatch(/Pick an assistant/);
    expect(formProblem(form({ mode: 'features' }))).toMatch(/Tick the features/);
    expect(formProblem(form({ all: true }))).toBe('');
  });
  it('asks for VRAM before anything else when detection is off', () => {
    expect(formProblem(form({ all: true, detect: false }))).toMatch(/Enter the GPU memory \(VRAM\)/);
    expect(formProblem(form({ all: true, detect: false, vramGiB: '0' }))).toBe('');
  });
  it('refuses numbers that are not', () => {
    expect(formProblem(form({ all: true, vramGiB: 'eight' }))).toBe('VRAM must be a number, 0 or more.');
    expect(formProblem(form({ all: true, subscription: '-20' }))).toBe('Subscription must be a number, 0 or more.');
  });
});

describe('toRequest', () => {
  it('turns GiB into bytes and blanks into null', () => {
    const r = toRequest(form({ mode: 'features', features: ['vision'], vramGiB: '8', ramGiB: '', hours: '', hourly: '40', subscription: '20', airGapped: true }));
    expect(r.vram_bytes).toBe(8 * 1024 ** 3);
    expect(r.ram_bytes).toBeNull();
    expect(r.detect).toBe(true); // RAM still comes from detection
    expect(r.hours_available).toBeNull();
    expect(r.hourly_value).toBe(40);
    expect(r.features).toEqual(['vision']);
    expect(r.assistant_ids).toEqual([]);
    expect(r.air_gapped).toBe(true);
  });
  it('needs no detection when both sizes are typed', () => {
    const r = toRequest(form({ assistantIds: ['a'], vramGiB: '7,5', ramGiB: '32' }));
    expect(r.vram_bytes).toBe(7.5 * 1024 ** 3);
    expect(r.detect).toBe(false);
    expect(r.assistant_ids).toEqual(['a']);
  });
  it('round-trips through a stored request', () => {
    const f = form({ mode: 'features', features: ['canvas', 'memory'], label: 'Idea', vramGiB: '12', ramGiB: '64', hours: '10', dataLocal: true });
    expect(formFrom(toRequest(f))).toEqual({ ...f, detect: false });
  });
});

describe('columns and words', () => {
  const aa = {
    capabilities: [
      { id: 'instructions', category: 'ports' },
      { id: 'vision', category: 'does_not_port' },
      { id: 'knowledge', category: 'hosts' },
      { id: 'memory', category: 'rebuild' },
      { id: 'file_uploads', category: 'ports' },
    ],
  } as unknown as AssistantAudit;
  it('sorts capabilities into the four columns in order', () => {
    const c = columns(aa);
    expect(c.ports.map((r) => r.id)).toEqual(['instructions', 'file_uploads']);
    expect(c.hosts.map((r) => r.id)).toEqual(['knowledge']);
    expect(c.rebuild.map((r) => r.id)).toEqual(['memory']);
    expect(c.does_not_port.map((r) => r.id)).toEqual(['vision']);
  });
  it('writes sizes, costs and models as the UI says them', () => {
    expect(gib(8 * 1024 ** 3)).toBe('8 GiB');
    expect(gib(512 * 1024 ** 2)).toBe('512 MiB');
    expect(gib(0)).toBe('0 bytes');
    expect(costText({ hours: 6, ops: 'x', ops_hours_per_month: 1 }, 'rebuild')).toBe('6 h of work, then 1 h a month');
    expect(costText({ hours: 0.5, ops: '', ops_hours_per_month: 0 }, 'ports')).toBe('0.5 h of work');
    expect(costText({ hours: 0, ops: '', ops_hours_per_month: 0 }, 'does_not_port')).toBe('');
    expect(modelText(null)).toMatch(/No text model fits/);
    expect(modelText({ name: 'Qwen', tag: '', vram_bytes: 0, ram_bytes: 8 * 1024 ** 3, on_cpu: true, vision: false, tools: false, coder: false, source: '' })).toBe('Qwen (on the CPU, 8 GiB of RAM)');
    expect(modelText({ name: 'Gemma 3 27B IT at Q4_K_M', tag: 'gemma3:27b', vram_bytes: 18 * 1024 ** 3, ram_bytes: 0, on_cpu: false, vision: true, tools: false, coder: false, source: '' })).toBe('Gemma 3 27B IT at Q4_K_M (on the GPU, 18 GiB; ollama pull gemma3:27b)');
    expect(linkHash('sandbox')).toBe('#/code');
    expect(linkHash('ask')).toBe('#/ask');
    expect(linkHash(undefined)).toBe('');
  });
  it('finds an assistant’s cell in the across view', () => {
    const row = { id: 'vision', name: 'Vision', users: [{ name: 'A', category: 'rebuild' as const, decision: 'move' as const }] };
    expect(acrossCell(row, 'A')).toBe('rebuild');
    expect(acrossCell(row, 'B')).toBe('');
  });
});

describe('headlineRest', () => {
  it('drops the decision the badge already shows', () => {
    const v = (decision: 'move' | 'move_in_part' | 'keep', headline: string) => ({ decision, headline, label: '', stays_behind: [], reasons: [] });
    expect(headlineRest(v('move_in_part', 'Move in part: actions (OpenAPI) stays behind.'))).toBe('Actions (OpenAPI) stays behind.');
    expect(headlineRest(v('move', 'Move: everything it uses runs on this machine.'))).toBe('Everything it uses runs on this machine.');
    expect(headlineRest(v('keep', 'Keep it on ChatGPT for now.'))).toBe('');
  });
});

describe('import helpers', () => {
  it('tells bundles apart and lists paths once', async () => {
    const { isBundleName, baseName, addPaths } = await import('./auditImport');
    expect(isBundleName('gpt.rehome.tar.gz')).toBe(true);
    expect(isBundleName('GPT.ZIP')).toBe(true);
    expect(isBundleName('notes.md')).toBe(false);
    expect(baseName('/data/uploads/x/notes q3.md')).toBe('notes q3.md');
    expect(baseName('C:\\Users\\me\\a.pdf')).toBe('a.pdf');
    expect(addPaths(['/a'], ['/a', '/b', ''])).toEqual(['/a', '/b']);
  });

  it('reports a list import per assistant', async () => {
    const { importSummary, importItemText } = await import('./auditImport');
    type ImportItem = import('./auditImport').ImportItem;
    const ok = { index: 1, source_id: 'asst_abc456', name: 'My Assistant', imported: true, warnings: ['vs'],
      assistant: { id: '01J', name: 'My Assistant', knowledge: [], actions: [], remote_files: [{}, {}] } } as unknown as ImportItem;
    const bad = { index: 3, source_id: 'asst_abc000', name: 'Broken Export', imported: false, warnings: [], error: 'instructions: expected a string, got number' } as ImportItem;
    const rep = { list: true, items: [ok, bad], imported: 1, failed: 1, notes: [] };
    expect(importSummary(rep)).toBe('Imported 1 of the 2 assistants in the list; 1 could not be imported (see below).');
    expect(importItemText(ok)).toBe('Imported “My Assistant” (asst_abc456): no knowledge files, no actions, 2 files still on OpenAI');
    expect(importItemText(bad)).toBe('Not imported: “Broken Export” (asst_abc000): instructions: expected a string, got number');
    expect(importSummary({ list: false, items: [ok], imported: 1, failed: 0, notes: [] })).toBe('Imported “My Assistant” with no knowledge files.'); expect(importSummary({ list: false, items: [{ ...ok, assistant: { ...ok.assistant!, knowledge: [{}] } } as ImportItem], imported: 1, failed: 0, notes: [] })).toBe('Imported “My Assistant” with 1 knowledge file.');
    expect(importItemText({ ...bad, name: '', source_id: '' })).toBe('Not imported: “Item 4”: instructions: expected a string, got number');
  });
});

describe('the choice of a text model', () => {
  const gemma = { name: 'Gemma 3 27B IT at Q6_K', tag: 'gemma3:27b', vram_bytes: 22 * 1024 ** 3, ram_bytes: 0, on_cpu: false, vision: true, tools: false, coder: false, source: 'fit estimate' };
  const qwen = { ...gemma, name: 'Qwen2.5 32B Instruct at Q4_K_M', tag: 'qwen2.5:32b', vision: false };
  it('takes each assistant\'s own model, the record\'s for older audits', () => {
    const rec = { text_model: qwen } as unknown as AuditRecord;
    const chosen = { text_model: gemma, model_choice: { needs: ['vision'], alternatives: [], reason: '' } } as unknown as AssistantAudit;
    const old = {} as unknown as AssistantAudit;
    const none = { text_model: null, model_choice: { needs: [], alternatives: [], reason: 'No text model fits this machine.' } } as unknown as AssistantAudit;
    expect(assistantModel(rec, chosen)?.name).toBe(gemma.name);
    expect(assistantModel(rec, old)?.name).toBe(qwen.name);
    expect(assistantModel(rec, none)).toBeNull();
  });
  it('says the needs and the alternatives', () => {
    expect(needsText([])).toBe('');
    expect(needsText(['vision', 'tools'])).toBe('It needs a model that reads images (for vision), calls tools (for the actions).');
    const alt = { model: gemma, why: ['the best that reads images'], meets: ['vision'], misses: [], does_not_port: [], hours: 0.75, ops_hours_per_month: 0, first_year_hours: 0.75, chosen: true, summary: 'Gemma 3 27B IT at Q6_K: 22.6 GiB of VRAM; reads images — 0.75 h of work + 0 h/month; everything ports or is rebuilt' };
    expect(alternativeText(alt as Alternative)).toBe('Gemma 3 27B IT at Q6_K: 22.6 GiB of VRAM; reads images — 0.75 h of work + 0 h/month; everything ports or is rebuilt — the best that reads images (chosen)');
    expect(alternativeText({ ...(alt as Alternative), chosen: false, why: ['the best model that fits'] })).not.toMatch(/chosen/);
  });
});
