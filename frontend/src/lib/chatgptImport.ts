// ChatGPT's data export brought into the conversation list: which dropped
// files are one, and the words for an import's progress and report
// (core.ImportProgress, core.ImportReport).

import { bytes } from './format';
import type { core } from './gen/api.gen';

/**
 * A file named as ChatGPT's data export is: the .zip it mails
 * (<64 hex>-YYYY-MM-DD-HH-MM-SS-<32 hex>.zip) or a conversations*.json.
 * Other zips (data, a rehome bundle) are not taken for one; the Import
 * button reads any file by what it holds.
 */
export function isChatGPTExport(path: string): boolean {
  const name = (path.split(/[\\/]/).pop() ?? path).toLowerCase();
  return /^[0-9a-f]{64}-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}-[0-9a-f]{32}( \(\d+\))?\.zip$/.test(name) || /^conversations.*\.json$/.test(name);
}

export type ImportProgress = core.ImportProgress;
/** core.ImportReport, with its lists null as Go writes nil ones. */
export interface ImportReport extends Omit<core.ImportReport, 'skips' | 'filed'> {
  skips: core.ImportSkip[] | null;
  filed: core.ImportFiled[] | null;
}

/** One line while it streams: counts, and how far through the file. */
export function progressText(p: ImportProgress): string {
  let s = `Importing: ${p.seen} conversation${p.seen === 1 ? '' : 's'} read, ${p.imported} imported`;
  if (p.size > 0) s += ` — ${bytes(p.read)} of ${bytes(p.size)} (${Math.floor((p.read * 100) / p.size)}%)`;
  return s;
}

/** The report in a few lines: what came in, under which GPT, what did not. */
export function reportLines(r: ImportReport): string[] {
  const out = [
    `Imported ${r.imported} conversation${r.imported === 1 ? '' : 's'} (${r.imported - r.replaced} new, ${r.replaced} updated); ${r.unchanged} unchanged since an earlier import; ${r.skipped} not imported.`,
  ];
  for (const f of [...(r.filed ?? [])].sort((a, b) => b.conversations - a.conversations)) {
    out.push(
      f.assistant_name
        ? `${f.conversations} with the GPT ${f.gizmo_id}, filed under “${f.assistant_name}”.`
        : `${f.conversations} with the GPT ${f.gizmo_id}: they join its assistant once you import it (Assistants → Import a GPT).`,
    );
  }
  if (r.plain_chats) out.push(`${r.plain_chats} plain chat${r.plain_chats === 1 ? '' : 's'}, with no GPT.`);
  if (r.branches || r.dropped_branches)
    out.push(`${r.branches} other branch${r.branches === 1 ? '' : 'es'} (edited questions, regenerated answers) kept beside the one you were on; ${r.dropped_branches} not kept.`);
  if (r.files) out.push(`${r.files} file${r.files === 1 ? '' : 's'} from the zip (${bytes(r.file_bytes)}).`);
  for (const s of (r.skips ?? []).slice(0, 5)) out.push(`Not imported: “${s.title || s.id}”: ${s.why}`);
  if (r.stopped) out.push(`The import ${r.stopped}.`);
  return out;
}
