// Getting a GPT's files to Go for the import form. In the rehome window a
// dropped file arrives as its path and is referenced where it is; a
// browser cannot hand over paths, so there the file is uploaded (POST
// /api/upload) and a copy kept in rehome's data folder.

import { authHeaders } from './api';

export interface Uploaded {
  path: string;
  name: string;
  size: number;
}

/** Uploads one file and returns where rehome stored it. */
export async function uploadFile(file: File): Promise<Uploaded> {
  let res: Response;
  try {
    res = await fetch('/api/upload', {
      method: 'POST',
      headers: { 'X-File-Name': encodeURIComponent(file.name), ...authHeaders() },
      body: file,
      credentials: 'same-origin',
    });
  } catch {
    throw new Error(`upload of ${file.name} failed: is \`rehome serve\` still running?`);
  }
  let body: { path?: string; name?: string; size?: number; error?: string };
  try {
    body = await res.json();
  } catch {
    throw new Error(`upload of ${file.name} failed (HTTP ${res.status})`);
  }
  if (!res.ok || body.error || !body.path) throw new Error(body.error || `upload of ${file.name} failed (HTTP ${res.status})`);
  return { path: body.path, name: body.name ?? file.name, size: body.size ?? file.size };
}

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
