// A model's own settings (temperature, context length, system prompt), as
// the Ask screen shows and edits them; kept by rehome per model name
// (core.ModelPrefs), the same ones `rehome ask` uses.
import type { llm } from './gen/api.gen';

export type ModelSettings = llm.ModelSettings;

/** The form's fields, as typed: '' leaves a field to the server (or rehome's default). */
export interface SettingsForm {
  temperature: string;
  context: string;
  system_prompt: string;
}

export const MAX_TEMPERATURE = 2;
export const MIN_CONTEXT = 512;
export const MAX_CONTEXT = 1 << 20;
/** The context a carried model starts with when none is set (llamarun.DefaultContext). */
export const DEFAULT_CONTEXT = 8192;

export function toForm(s: ModelSettings | undefined): SettingsForm {
  return {
    temperature: s?.temperature === undefined || s?.temperature === null ? '' : String(s.temperature),
    context: s?.context ? String(s.context) : '',
    system_prompt: s?.system_prompt ?? '',
  };
}

/** The settings a form says, or the first problem in words. */
export function fromForm(f: SettingsForm): { settings: ModelSettings } | { error: string } {
  const out: ModelSettings = {};
  const t = f.temperature.trim();
  if (t) {
    const v = Number(t);
    if (!Number.isFinite(v) || v < 0 || v > MAX_TEMPERATURE) return { error: `Temperature is a number from 0 to ${MAX_TEMPERATURE}, such as 0.7.` };
    out.temperature = v;
  }
  const c = f.context.trim();
  if (c) {
    const v = Number(c);
    if (!Number.isInteger(v) || v < MIN_CONTEXT || v > MAX_CONTEXT) return { error: `Context length is a whole number of tokens from ${MIN_CONTEXT} to ${MAX_CONTEXT}, such as 8192.` };
    out.context = v;
  }
  if (f.system_prompt.trim()) out.system_prompt = f.system_prompt.trim();
  return { settings: out };
}

/** What a question to the model goes with, in a few words ('' when nothing is set). */
export function settingsLine(s: ModelSettings | undefined, carried: boolean): string {
  if (!s) return '';
  const parts: string[] = [];
  if (s.temperature !== undefined && s.temperature !== null) parts.push(`temperature ${s.temperature}`);
  if (s.context) parts.push(carried ? `context ${s.context.toLocaleString('en')} tokens` : `context: the server decides`);
  if (s.system_prompt) parts.push('its own system prompt');
  return parts.join(' · ');
}

/** How the context length is decided for this model, for the form. */
export function contextWords(carried: boolean): string {
  return carried
    ? `rehome starts this model's llama-server with this many tokens of context (-c; empty: ${DEFAULT_CONTEXT.toLocaleString('en')}, less if it does not fit). A server already running with at least as much is reused.`
    : 'This model runs on a server rehome does not start: the server decides its context length (the OpenAI API has no field for it). Set it where the server runs — Ollama: num_ctx in a Modelfile; llama-server: -c.';
}
