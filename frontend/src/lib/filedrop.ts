// The Wails window has one file-drop handler for the whole page. Each
// part of the UI that takes dropped files claims it while it shows; the
// latest claim gets the drops, and releasing a claim gives them back to
// the one before — whatever order parts mount and unmount in (a screen
// and the panels inside another screen swap in one update, and each
// calling OnFileDropOff on its way out would switch off the other's).

type Handler = (paths: string[]) => void;

const claims: { take: Handler }[] = [];
let registered = false;

/** Routes the window's file drops to take until the returned release; a no-op in a browser. */
export function claimFileDrop(take: Handler): () => void {
  const rt = typeof window === 'undefined' ? undefined : window.runtime;
  if (!rt?.OnFileDrop) return () => {};
  const claim = { take };
  claims.push(claim);
  if (!registered) {
    rt.OnFileDrop((_x: number, _y: number, paths: string[]) => claims[claims.length - 1]?.take(paths), false);
    registered = true;
  }
  return () => {
    const i = claims.indexOf(claim);
    if (i >= 0) claims.splice(i, 1);
  };
}
