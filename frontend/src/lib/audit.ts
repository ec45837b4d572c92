// The capability audit as backend/audit returns it, and the words, sums
// and checks the Audit screen needs. Pure functions only: the screen
// calls Go through api.ts.
import { bytes } from './format';

export type Category = 'ports' | 'rebuild' | 'does_not_port';
export type Decision = 'move' | 'move_in_part' | 'keep';

export const categories: Category[] = ['ports', 'rebuild', 'does_not_port'];

export const categoryLabels: Record<Category, string> = {
  ports: 'Ports as-is',
  rebuild: 'You rebuild',
  does_not_port: 'Does not port',
};

export const decisionLabels: Record<Decision, string> = {
  move: 'Move',
  move_in_part: 'Move in part',
  keep: 'Keep on ChatGPT',
};

export interface Cost {
  hours: number;
  ops: string;
  ops_hours_per_month: number;
}

export interface Result {
  id: string;
  name: string;
  category: Category;
  label: string;
  reason: string;
  replacement: string;
  link?: string;
  cost: Cost;
  rule?: string;
  because: string[];
  /** What must be brought onto this machine first (files left on OpenAI's servers). */
  bring?: string;
}

export interface Reason {
  side: 'for' | 'against';
  text: string;
  deciding: boolean;
}

export interface Verdict {
  decision: Decision;
  label: string;
  headline: string;
  stays_behind: string[];
  reasons: Reason[];
}

export interface Economics {
  hours: number;
  ops_hours_per_month: number;
  first_year_hours: number;
  hourly_value: number;
  first_year_cost: number;
  subscription_per_month: number;
  subscription_per_year: number;
  hours_available: number | null;
  over_hours: boolean;
  sum: string;
}

export interface Subject {
  assistant_id?: string;
  name: string;
  features: string[];
  action_hosts: string[];
  action_unknown_url: boolean;
  action_oauth: boolean;
}

export type Need = 'vision' | 'tools' | 'code';

/** One text model the assistant could run on, and what it costs the assistant. */
export interface Alternative {
  model: TextModel;
  why: string[];
  meets: Need[];
  misses: Need[];
  does_not_port: string[];
  hours: number;
  ops_hours_per_month: number;
  first_year_hours: number;
  chosen: boolean;
  summary: string;
}

/** How an assistant's text model was chosen: its needs, the alternatives, the ruling. */
export interface ModelChoice {
  needs: Need[];
  alternatives: Alternative[];
  reason: string;
}

export interface AssistantAudit {
  subject: Subject;
  /** The text model chosen for this assistant (absent in audits stored before the choice). */
  text_model?: TextModel | null;
  model_choice?: ModelChoice;
  capabilities: Result[];
  verdict: Verdict;
  economics: Economics;
}

export interface Use {
  assistant_id?: string;
  name: string;
  category: Category;
  decision: Decision;
}

export interface CapabilityUse {
  id: string;
  name: string;
  users: Use[];
}

export interface Machine {
  vram_bytes: number;
  ram_bytes: number;
  vram_source: string;
  ram_source: string;
  unified: boolean;
  gpus: string[];
  notes: string[];
}

export interface TextModel {
  name: string;
  tag: string;
  id?: string;
  quant?: string;
  vram_bytes: number;
  ram_bytes: number;
  on_cpu: boolean;
  vision: boolean;
  tools?: boolean;
  coder?: boolean;
  score?: number;
  source: string;
}

export interface Request {
  assistant_ids: string[];
  all: boolean;
  features: string[];
  label?: string;
  actions_local?: boolean;
  vram_bytes: number | null;
  ram_bytes: number | null;
  detect: boolean;
  air_gapped: boolean;
  data_must_stay_local: boolean;
  hours_available: number | null;
  hourly_value: number | null;
  subscription_per_month: number | null;
}

export interface AuditRecord {
  schema: number;
  id: string;
  created: string;
  request: Request;
  machine: Machine;
  text_model: TextModel | null;
  catalog_version: number;
  assistants: AssistantAudit[];
  across: CapabilityUse[];
  summary: { move: number; move_in_part: number; keep: number; headline: string };
}

export interface Change {
  field: string;
  from: string;
  to: string;
}

export interface CapabilityChange {
  id: string;
  name: string;
  from: Category | '';
  to: Category | '';
  reason: string;
  why: string;
}

export interface AssistantChange {
  assistant_id?: string;
  name: string;
  status: 'changed' | 'same' | 'added' | 'removed';
  verdict_from?: Decision;
  verdict_to?: Decision;
  verdict_why?: string;
  capabilities: CapabilityChange[];
}

export interface Comparison {
  older: { id: string; created: string };
  newer: { id: string; created: string };
  inputs: Change[];
  assistants: AssistantChange[];
  summary: string;
}

export interface CatalogEntry {
  id: string;
  name: string;
  category: Category;
}

export interface Catalog {
  version: number;
  capabilities: CatalogEntry[];
}

export interface Step {
  n: number;
  title: string;
  detail: string;
  commands: string[];
  capability?: string;
  category?: Category;
  link?: string;
}

export interface Checklist {
  assistant_id: string;
  name: string;
  audit_id: string;
  decision: Decision;
  headline: string;
  steps: Step[];
}

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

/** The capabilities of one assistant in the three columns, in catalog order. */
export function columns(aa: AssistantAudit): Record<Category, Result[]> {
  const out: Record<Category, Result[]> = { ports: [], rebuild: [], does_not_port: [] };
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
export function needsText(needs: Need[]): string {
  if (!needs.length) return '';
  return 'It needs a model that ' + needs.map((n) => needWords[n]).join(', ') + '.';
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
  return link === 'sandbox' ? '#/code' : '';
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
