// Browser uploads: a page cannot see a file's path, so `rehome serve`
// receives the file (POST /api/upload, streamed to the data folder) and
// answers the path it stored it at.

import { authHeaders } from './api';

export interface Uploaded {
  path: string;
  name: string;
  size: number;
}

/** Sends file to rehome; onProgress gets the fraction sent (0..1). */
export function upload(file: File, onProgress?: (fraction: number) => void, signal?: AbortSignal): Promise<Uploaded> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/upload');
    xhr.setRequestHeader('X-File-Name', encodeURIComponent(file.name));
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
    xhr.withCredentials = true;
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress?.(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: { path?: string; name?: string; size?: number; error?: string } = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        reject(new Error(xhr.status === 401 || xhr.status === 403 ? 'This page lost its access token: open the URL that `rehome serve` printed.' : `The upload failed (HTTP ${xhr.status}).`));
        return;
      }
      if (xhr.status !== 200 || body.error || !body.path) {
        reject(new Error(body.error || `The upload failed (HTTP ${xhr.status}).`));
        return;
      }
      resolve({ path: body.path, name: body.name ?? file.name, size: body.size ?? file.size });
    };
    xhr.onerror = () => reject(new Error('rehome is not reachable: is `rehome serve` still running?'));
    xhr.onabort = () => reject(new Error('Upload cancelled.'));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(file);
  });
}
