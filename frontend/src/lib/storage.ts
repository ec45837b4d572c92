// The UI's small state (theme, folds, pane sizes, the open conversation
// and file) lives in the web view's storage. WebKitGTK keeps one storage
// for every rehome window, whatever its data folder (REHOME_HOME), so each
// key is kept under its data folder's name: one folder's theme or kept
// assistant never reaches another's window, and the window tests, each on
// a fresh folder, start from nothing. (In a browser the origin is the
// bridge's own port; the folder's name is added there too.)
//
// An older rehome kept the same names unprefixed ("rehome.pref.autoRun"),
// one set for every folder. The first folder opened after the upgrade
// takes them over (a value of its own wins) and they are removed, so a
// user's choices — auto-run off, the theme, pane sizes — survive the
// upgrade, and no second folder ever reads them.

let prefix = '';

/** Names the data folder whose state is read and written from now on. */
export function setStorageFolder(dataDir: string): void {
  prefix = `rehome@${dataDir || '?'}|`;
  if (dataDir) claimOlderKeys();
}

/** Moves the keys an older rehome kept for every folder into this folder's. */
function claimOlderKeys(): void {
  try {
    const older: string[] = [];
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (k?.startsWith('rehome.')) older.push(k);
    }
    for (const k of older) {
      const v = localStorage.getItem(k);
      if (v !== null && localStorage.getItem(storageKey(k)) === null) localStorage.setItem(storageKey(k), v);
      localStorage.removeItem(k);
    }
  } catch {
    // storage off or full: the folder starts from the defaults
  }
}

/** The key a name is stored under for the current data folder. */
export function storageKey(name: string): string {
  return prefix + name;
}

/** The value kept under name for this data folder, or null. */
export function readItem(name: string): string | null {
  try {
    return localStorage.getItem(storageKey(name));
  } catch {
    return null; // storage off: nothing was kept
  }
}

/** Keeps value under name for this data folder (lost when storage is off or full). */
export function writeItem(name: string, value: string): void {
  try {
    localStorage.setItem(storageKey(name), value);
  } catch {
    // storage full or off: the choice lasts until the page reloads
  }
}

/** Forgets what was kept under name for this data folder. */
export function removeItem(name: string): void {
  try {
    localStorage.removeItem(storageKey(name));
  } catch {
    // storage off: nothing was kept
  }
}
