// Which server and model Ask opens with: what the user chose before,
// kept in Settings (llm.ServerPrefs), among the servers found now.
import type { llm } from './gen/api.gen';
import { defaultChoice } from './ask';

type Choice = { server: string; model: string };

/**
 * The choice ("server|model") for an assistant (or none): its default model
 * when a server offers it, else the server and model last asked with it, else
 * the last overall, else the first offered; '' when nothing is offered.
 */
export function rememberedChoice(choices: Choice[], prefs: llm.ServerPrefs | null, assistantId: string, assistantModel?: string): string {
  const has = (c: Choice | undefined) => !!c && choices.some((x) => x.server === c.server && x.model === c.model);
  const key = (c: Choice) => `${c.server}|${c.model}`;
  const def = defaultChoice(choices, assistantModel);
  if (def) return def;
  const per = assistantId ? prefs?.per_assistant?.[assistantId] : undefined;
  if (per && has(per)) return key(per);
  if (prefs?.last && has(prefs.last)) return key(prefs.last);
  return choices.length ? key(choices[0]) : '';
}

/** Servers found on several lookups, once each (by base URL), in order. */
export function mergeServers(...lists: llm.Server[][]): llm.Server[] {
  const seen = new Set<string>();
  const out: llm.Server[] = [];
  for (const s of lists.flat()) {
    if (seen.has(s.base_url)) continue;
    seen.add(s.base_url);
    out.push(s);
  }
  return out;
}
