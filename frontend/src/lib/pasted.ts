// A pasted image's name. Browsers call every pasted screenshot "image.png",
// so two in one question would share /mnt/data/image.png; the window names
// its pastes pasted-<8 hex of the SHA-256>.<format> (core.KeepPastedImage),
// and the browser's get the same name. A file copied by its name (from a
// file manager) keeps it.

const formats: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };

/** pastedName is the name the window gives the same bytes: pasted-<8 hex>.<format>. */
export async function pastedName(bytes: ArrayBuffer, type: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  const hex = Array.from(digest.slice(0, 4), (b) => b.toString(16).padStart(2, '0')).join('');
  return `pasted-${hex}.${formats[type] ?? (type.split('/')[1] || 'img')}`;
}

/** renamePasted gives each pasted screenshot (the browser's "image.png") its own name; a named file keeps its. */
export async function renamePasted(files: File[]): Promise<File[]> {
  return Promise.all(
    files.map(async (f) => (/^image\.(png|jpe?g|gif|webp)$/i.test(f.name) ? new File([f], await pastedName(await f.arrayBuffer(), f.type), { type: f.type }) : f)),
  );
}
