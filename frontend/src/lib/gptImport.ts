// Words for the import of ChatGPT's own GPT records: the preview before
// an import and the per-GPT report after it. Pure, so tested beside.

import type { assistant } from './gen/api.gen';
import { plural } from './format';

type Item = assistant.ImportItem;
type Action = assistant.Action;
type RemoteFile = assistant.RemoteFile;

const capWords: Record<string, string> = {
  web_browsing: 'web browsing',
  image_generation: 'image generation',
  code_interpreter: 'code interpreter',
  canvas: 'canvas',
  knowledge: 'knowledge',
  memory: 'memory',
  voice: 'voice',
  vision: 'vision',
  file_uploads: 'file uploads',
};

/** An action's auth, and what it waits for, in the user's words. */
export function actionAuthText(ac: Action): string {
  const name = ac.name || ac.domain || 'action';
  const host = ac.domain ? ` (${ac.domain})` : '';
  switch (ac.auth) {
    case 'api_key': {
      const how = ac.signing === 'header' ? `an API key in the ${ac.header} header` : ac.signing === 'basic' ? 'an API key sent as HTTP Basic' : 'an API key sent as a bearer token';
      return `${name}${host}: ${how} — waits for its key`;
    }
    case 'oauth':
      return `${name}${host}: OAuth sign-in${ac.oauth?.client_id ? '' : ' — waits for its OAuth client (client id and secret)'}`;
  }
  return `${name}${host}: no auth`;
}

/** Files to bring, by count and type. */
export function filesText(files: RemoteFile[]): string {
  const open = files.filter((f) => f.kind === 'gpt_file' && !f.filled);
  if (!open.length) return '';
  const byType = new Map<string, number>();
  for (const f of open) byType.set(f.type || 'unknown type', (byType.get(f.type || 'unknown type') ?? 0) + 1);
  const parts = [...byType.entries()].sort().map(([t, n]) => `${n} ${t}`);
  return `${plural(open.length, 'file', 'files')} to bring: ${parts.join(', ')}`;
}

/** The lines that describe one GPT of a preview or a report. */
export function gptLines(it: Item): string[] {
  const a = it.assistant;
  if (!a) return [];
  const lines: string[] = [];
  const caps = (a.capabilities ?? []).map((c) => capWords[c] ?? c);
  if (a.actions?.length) caps.push(plural(a.actions.length, 'action', 'actions'));
  lines.push(caps.length ? `Had: ${caps.join(', ')}` : 'Had no tools');
  if (a.starters?.length) lines.push(plural(a.starters.length, 'conversation starter', 'conversation starters'));
  lines.push(a.instructions?.trim() ? 'Instructions: included' : 'Instructions: not in this record (the owner’s export has them)');
  for (const ac of a.actions ?? []) lines.push('Action ' + actionAuthText(ac));
  const f = filesText(a.remote_files ?? []);
  if (f) lines.push(f);
  return lines;
}

/** The head line of one GPT: what will happen (preview) or happened. */
export function gptHead(it: Item, preview: boolean): string {
  const name = it.name || `Item ${it.index + 1}`;
  const id = it.source_id ? ` (${it.source_id})` : '';
  if (!it.imported) return `${preview ? 'Will not import' : 'Not imported'}: “${name}”${id}: ${it.error ?? 'unknown error'}`;
  if (preview) return `${it.updated ? 'Updates' : 'Adds'} “${name}”${id}`;
  return `${it.updated ? 'Updated' : 'Imported'} “${name}”${id}`;
}

/** Whether a report is about GPT records (they have a g- id). */
export function hasGPTs(items: Item[]): boolean {
  return items.some((it) => !!it.assistant?.gizmo_id);
}
