// The capability audit as backend/audit returns it, and the words, sums
// and checks the Audit screen needs. Pure functions only: the screen
// calls Go through api.ts.
import { bytes } from './format';
import type { audit } from './gen/api.gen';

export type Category = audit.Category;
export type Decision = audit.Decision;
export type Cost = audit.Cost;
export type Result = audit.Result;
export type Reason = audit.Reason;
export type Verdict = audit.Verdict;
export type Economics = audit.Economics;
export type Subject = audit.Subject;
export type Alternative = audit.Alternative;
export type ModelChoice = audit.ModelChoice;
export type AssistantAudit = audit.AssistantAudit;
export type Use = audit.Use;
export type CapabilityUse = audit.CapabilityUse;
export type Machine = audit.Machine;
export type TextModel = audit.Model;
export type Request = audit.Request;
export type AuditRecord = audit.Record;
export type Change = audit.Change;
export type CapabilityChange = audit.CapabilityChange;
export type AssistantChange = audit.AssistantChange;
export type Comparison = audit.Comparison;
export type CatalogEntry = audit.Capability;
export type Catalog = audit.Catalog;
export type Step = audit.Step;
export type Checklist = audit.Checklist;


export const categories: Category[] = ['ports', 'hosts', 'rebuild', 'does_not_port'];

export const categoryLabels: Record<Category, string> = {
  ports: 'Ports as-is',
  hosts: 'rehome hosts it',
  rebuild: 'You rebuild',
  does_not_port: 'Does not port',
};

export const decisionLabels: Record<Decision, string> = {
  move: 'Move',
  move_in_part: 'Move in part',
  keep: 'Keep on ChatGPT',
};







export type Need = 'vision' | 'tools' | 'code';


















/** The audit form as the screen holds it: sizes in GiB, blanks as ''. */
export interface AuditForm {
  mode: 'assistants' | 'features';
  assistantIds: string[];
  all: boolean;
  features: string[];
  label: string;
  detect: boolean;
  vramGiB: string;
  ramGiB: string;
  airGapped: boolean;
  dataLocal: boolean;
  hours: string;
  hourly: string;
  subscription: string;
}

export function emptyForm(): AuditForm {
  return {
    mode: 'assistants',
    assistantIds: [],
    all: false,
    features: [],
    label: '',
    detect: true,
    vramGiB: '',
    ramGiB: '',
    airGapped: false,
    dataLocal: false,
    hours: '',
    hourly: '50',
    subscription: '20',
  };
}

const GiB = 1024 ** 3;

/** A number typed in a field: null when blank, NaN when not a number. */
function num(s: string): number | null {
  const t = s.trim().replace(',', '.');
  if (t === '') return null;
  const v = Number(t);
  return Number.isFinite(v) ? v : NaN;
}

/** What is wrong with the form, in words, or '' when it can run. */
export function formProblem(f: AuditForm): string {
  if (f.mode === 'assistants' && !f.all && f.assistantIds.length === 0) {
    return 'Pick an assistant to audit, or tick “All assistants”.';
  }
  if (f.mode === 'features' && f.features.length === 0) {
    return 'Tick the features the GPT uses.';
  }
  const vram = num(f.vramGiB);
  if (!f.detect && vram === null) {
    return 'Enter the GPU memory (VRAM) in GiB, 0 for none, or tick “Use this machine’s hardware”: the audit says nothing before it knows it.';
  }
  for (const [label, v] of [
    ['VRAM', vram],
    ['RAM', num(f.ramGiB)],
    ['Hours', num(f.hours)],
    ['Value of an hour', num(f.hourly)],
    ['Subscription', num(f.subscription)],
  ] as const) {
    if (v !== null && (Number.isNaN(v) || v < 0)) return `${label} must be a number, 0 or more.`;
  }
  return '';
}

/** The request RunAudit takes. Typed sizes win over detection. */
export function toRequest(f: AuditForm): Request {
  const vram = num(f.vramGiB);
  const ram = num(f.ramGiB);
  const features = f.mode === 'features';
  return {
    assistant_ids: features || f.all ? [] : [...f.assistantIds],
    all: !features && f.all,
    features: features ? [...f.features] : [],
    label: features ? f.label.trim() : '',
    vram_bytes: vram === null ? null : Math.round(vram * GiB),
    ram_bytes: ram === null ? null : Math.round(ram * GiB),
    detect: vram === null || ram === null ? f.detect : false,
    air_gapped: f.airGapped,
    data_must_stay_local: f.dataLocal,
    hours_available: num(f.hours),
    hourly_value: num(f.hourly),
    subscription_per_month: num(f.subscription),
  };
}

/** The form that would rerun a stored audit's request. */
export function formFrom(r: Request): AuditForm {
  const f = emptyForm();
  const gib = (b: number | null) => (b === null || b === undefined ? '' : String(Math.round((b / GiB) * 100) / 100));
  f.mode = r.features.length > 0 && r.assistant_ids.length === 0 && !r.all ? 'features' : 'assistants';
  f.assistantIds = [...r.assistant_ids];
  f.all = r.all;
  f.features = [...r.features];
  f.label = r.label ?? '';
  f.detect = r.detect;
  f.vramGiB = gib(r.vram_bytes);
  f.ramGiB = gib(r.ram_bytes);
  f.airGapped = r.air_gapped;
  f.dataLocal = r.data_must_stay_local;
  f.hours = r.hours_available === null ? '' : String(r.hours_available);
  f.hourly = r.hourly_value === null ? '' : String(r.hourly_value);
  f.subscription = r.subscription_per_month === null ? '' : String(r.subscription_per_month);
  return f;
}

/** The capabilities of one assistant in the four columns, in catalog order. */
export function columns(aa: AssistantAudit): Record<Category, Result[]> {
  const out: Record<Category, Result[]> = { ports: [], hosts: [], rebuild: [], does_not_port: [] };
  for (const r of aa.capabilities) out[r.category].push(r);
  return out;
}

/** "8 GiB", "7.5 GiB", "512 MiB": memory as the UI shows every size (format.ts). */
export const gib = bytes;

/** "0.5 h", "6 h, then 1 h a month", "about nothing". */
export function costText(c: Cost, category: Category): string {
  if (category === 'does_not_port') return '';
  const h = `${trim(c.hours)} h of work`;
  if (c.ops_hours_per_month > 0) return `${h}, then ${trim(c.ops_hours_per_month)} h a month`;
  return h;
}

function trim(v: number): string {
  return String(Math.round(v * 100) / 100);
}

/** The machine line: "8 GiB VRAM (given) · 32 GiB RAM (detected)". */
export function machineText(m: Machine): string {
  return `${gib(m.vram_bytes)} VRAM (${m.vram_source}) · ${gib(m.ram_bytes)} RAM (${m.ram_source})`;
}

/** The text model line. */
export function modelText(t: TextModel | null): string {
  if (!t) return 'No text model fits this machine.';
  const where = t.on_cpu ? `on the CPU, ${gib(t.ram_bytes)} of RAM` : `on the GPU, ${gib(t.vram_bytes)}`;
  const tag = t.tag ? `; ollama pull ${t.tag}` : '';
  return `${t.name} (${where}${tag})`;
}

/** The text model of one assistant of a record: its own, or the record's for older audits. */
export function assistantModel(r: AuditRecord, aa: AssistantAudit): TextModel | null {
  if (aa.model_choice === undefined && !aa.text_model) return r.text_model;
  return aa.text_model ?? null;
}

const needWords: Record<Need, string> = {
  vision: 'reads images (for vision)',
  tools: 'calls tools (for the actions)',
  code: 'is trained for code (for code interpreter)',
};

/** What the assistant needs of its text model, in words; '' when nothing particular. */
export function needsText(needs: string[]): string {
  if (!needs.length) return '';
  return 'It needs a model that ' + needs.map((n) => needWords[n as Need]).join(', ') + '.';
}

/** One alternative's line: the model, what it meets, its cost; "(chosen)" for the winner. */
export function alternativeText(a: Alternative): string {
  return `${a.summary} — ${a.why.join(', ')}${a.chosen ? ' (chosen)' : ''}`;
}

/** One history row: when, memory, what was audited, the verdicts. */
export function historyTitle(r: AuditRecord): string {
  const names = r.assistants.map((a) => a.subject.name).join(', ');
  return `${gib(r.machine.vram_bytes)} VRAM · ${names}`;
}

/** The rehome screen a capability's replacement lives on. */
export function linkHash(link?: string): string {
  return link === 'sandbox' ? '#/code' : link === 'settings' ? '#/settings' : link === 'ask' ? '#/ask' : '';
}

/** The cell of the across view: what happens to a capability in one assistant. */
export function acrossCell(row: CapabilityUse, name: string): Category | '' {
  return row.users.find((u) => u.name === name)?.category ?? '';
}

/** The verdict's headline without the decision it starts with (the badge says that). */
export function headlineRest(v: Verdict): string {
  const m = v.headline.match(/^(Move in part|Move):\s*(.*)$/);
  if (m) return m[2].charAt(0).toUpperCase() + m[2].slice(1);
  return v.decision === 'keep' ? '' : v.headline;
}

/**
 * The form the Audit screen opens with: the assistants of the result it
 * shows ticked (so the ticks match the result on screen), with every
 * assistant made since that audit ticked too; with no audit yet, the newest
 * assistant ticked. The other fields start as for a new audit.
 */
export function openingForm(assistants: { id: string; created: string }[], latest: AuditRecord | null): AuditForm {
  if (!latest) {
    const f = emptyForm();
    if (assistants.length) f.assistantIds = [newest(assistants).id];
    return f;
  }
  // Only the ticks follow the shown result; the machine and money fields
  // start as for a new audit.
  const shown = formFrom(latest.request);
  const f = emptyForm();
  if (shown.mode === 'assistants') {
    f.all = shown.all;
    f.assistantIds = shown.assistantIds;
  }
  const since = Date.parse(latest.created);
  const fresh = assistants.filter((a) => Date.parse(a.created) > since).map((a) => a.id);
  if (fresh.length && f.mode === 'assistants' && !f.all) f.assistantIds = [...f.assistantIds.filter((id) => !fresh.includes(id)), ...fresh];
  f.assistantIds = f.assistantIds.filter((id) => assistants.some((a) => a.id === id));
  return f;
}

function newest<T extends { created: string }>(list: T[]): T {
  return list.reduce((a, b) => (Date.parse(b.created) > Date.parse(a.created) ? b : a));
}
