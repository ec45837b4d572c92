// The Wails window has one file-drop handler for the whole page. Each
// part of the UI that takes dropped files claims it while it shows; the
// latest claim gets the drops, and releasing a claim gives them back to
// the one before — whatever order parts mount and unmount in (a screen
// and the panels inside another screen swap in one update, and each
// calling OnFileDropOff on its way out would switch off the other's).

import { inWindow, message } from './api';

type Handler = (paths: string[]) => void;

const claims: { take: Handler; accepts?: (path: string) => boolean }[] = [];
let registered = false;

// dispatch gives the drop to the latest claim; a claim that accepts only
// some files (accepts) takes those, and the rest go on to the claim below.
function dispatch(paths: string[]) {
  for (let i = claims.length - 1; i >= 0 && paths.length; i--) {
    const c = claims[i];
    if (!c.accepts) return c.take(paths);
    const mine = paths.filter(c.accepts);
    if (mine.length) c.take(mine);
    paths = paths.filter((p) => !c.accepts!(p));
  }
}

/**
 * Routes the window's file drops to take until the returned release; a
 * no-op in a browser. With accepts, only the files it accepts: the others
 * go to the claim made before.
 */
export function claimFileDrop(take: Handler, accepts?: (path: string) => boolean): () => void {
  const rt = typeof window === 'undefined' ? undefined : window.runtime;
  if (!rt?.OnFileDrop) return () => {};
  const claim = { take, accepts };
  claims.push(claim);
  if (!registered) {
    rt.OnFileDrop((_x: number, _y: number, paths: string[]) => dispatch(paths), false);
    registered = true;
  }
  return () => {
    const i = claims.indexOf(claim);
    if (i >= 0) claims.splice(i, 1);
  };
}

/**
 * The handlers of a place that takes files dropped on it in a browser
 * (spread them on it: `{...dropTarget(over, take)}`): over(true) while
 * something is dragged over it, over(false) when it leaves or is dropped,
 * then take with the files. In the window Wails gives claimFileDrop the
 * paths instead, so take there usually ignores the drop.
 */
export function dropTarget(over: (on: boolean) => void, take: (files: FileList | undefined) => void) {
  return {
    ondragover: (e: DragEvent) => {
      e.preventDefault();
      over(true);
    },
    ondragleave: () => over(false),
    ondrop: (e: DragEvent) => {
      e.preventDefault();
      over(false);
      take(e.dataTransfer?.files);
    },
  };
}

/**
 * The "choose a file" button of a place that takes files: in the window
 * Go's own dialog picks (pick) and use gets what it chose; in a browser the
 * page's file input opens instead (its onchange reads the files). An error
 * of either goes to fail, in words.
 */
export async function chooseFiles<T>(input: HTMLInputElement | undefined, pick: () => Promise<T>, use: (chosen: T) => unknown, fail: (words: string) => void): Promise<void> {
  if (!inWindow()) {
    input?.click();
    return;
  }
  try {
    await use(await pick());
  } catch (e) {
    fail(message(e));
  }
}
