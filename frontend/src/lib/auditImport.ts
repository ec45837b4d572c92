// Getting a GPT's files to Go for the import form. In the rehome window a
// dropped file arrives as its path and is referenced where it is; a
// browser cannot hand over paths, so there the file is uploaded (upload.ts,
// POST /api/upload) and a copy kept in rehome's data folder.

import type { assistant } from './gen/api.gen';
import { plural } from './format';

/** What became of one assistant of an imported file. */
export type ImportItem = assistant.ImportItem;
/** The outcome of an import: one item, or one per assistant of a list. */
export type ImportReport = assistant.ImportReport;

/** Whether a file name looks like a rehome bundle. */
export function isBundleName(name: string): boolean {
  return /\.(tar\.gz|tgz|zip)$/i.test(name);
}

/** The last part of a path, for lists of attached files. */
export function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** Adds paths to a list, once each. */
export function addPaths(list: string[], paths: string[]): string[] {
  const out = [...list];
  for (const p of paths) if (p && !out.includes(p)) out.push(p);
  return out;
}



/** The one-line summary of an import. */
export function importSummary(rep: ImportReport): string {
  if (!rep.list && rep.items.length === 1 && rep.items[0].assistant) {
    const a = rep.items[0].assistant;
    if (rep.items[0].updated) return `Updated “${a.name}”: it was imported before from the same GPT (${a.gizmo_id}).`;
    return `Imported “${a.name}” with ${plural(a.knowledge.length, 'knowledge file', 'knowledge files', 'no knowledge files')}.`;
  }
  const n = rep.items.length;
  const failed = rep.failed ? `; ${rep.failed} could not be imported (see below)` : '';
  return `Imported ${rep.imported} of the ${n} assistant${n === 1 ? '' : 's'} in the list${failed}.`;
}

/** One assistant's line in the import report. */
export function importItemText(it: ImportItem): string {
  const src = it.source_id ? ` (${it.source_id})` : '';
  const name = it.name || `Item ${it.index + 1}`;
  if (!it.imported) return `Not imported: “${name}”${src}: ${it.error ?? 'unknown error'}`;
  const a = it.assistant!;
  const remote = a.remote_files?.length ? `, ${plural(a.remote_files.length, 'file', 'files')} still on OpenAI` : '';
  return `Imported “${a.name}”${src}: ${plural(a.knowledge.length, 'knowledge file', 'knowledge files', 'no knowledge files')}, ${plural(a.actions.length, 'action', 'actions', 'no actions')}${remote}`;
}
