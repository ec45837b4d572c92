import { describe, expect, it, vi } from 'vitest';

describe('claimFileDrop', () => {
  it('gives the drops to the latest claim, and back to the one before on release, in any order', async () => {
    let drop: (x: number, y: number, paths: string[]) => void = () => {};
    const OnFileDrop = vi.fn((cb) => (drop = cb));
    const OnFileDropOff = vi.fn();
    (window as any).runtime = { OnFileDrop, OnFileDropOff };
    const { claimFileDrop } = await import('./filedrop');
    const got: string[] = [];
    const code = claimFileDrop((p) => got.push('code:' + p[0]));
    drop(0, 0, ['a.csv']);
    // Switching screens: the panel claims before the screen releases.
    const panel = claimFileDrop((p) => got.push('panel:' + p[0]));
    code();
    drop(0, 0, ['b.pdf']);
    const importer = claimFileDrop((p) => got.push('import:' + p[0]));
    drop(0, 0, ['c.json']);
    importer();
    drop(0, 0, ['d.pdf']);
    panel();
    drop(0, 0, ['e.pdf']);
    expect(got).toEqual(['code:a.csv', 'panel:b.pdf', 'import:c.json', 'panel:d.pdf']);
    expect(OnFileDrop).toHaveBeenCalledTimes(1);
    expect(OnFileDropOff).not.toHaveBeenCalled();
    // A claim for some files only (ChatGPT's export on the Assistants
    // screen) takes those; the rest go on to the claim below it.
    const screen = claimFileDrop((p) => got.push('screen:' + p.join('+')));
    const exports = claimFileDrop((p) => got.push('export:' + p.join('+')), (p) => p.endsWith('.zip'));
    drop(0, 0, ['f.zip', 'g.pdf']);
    drop(0, 0, ['h.zip']);
    exports();
    screen();
    expect(got.slice(4)).toEqual(['export:f.zip', 'screen:g.pdf', 'export:h.zip']);
    delete (window as any).runtime;
  });
});

describe('dropTarget', () => {
  it('marks the place while files are over it and hands over the dropped ones', async () => {
    const { dropTarget } = await import('./filedrop');
    const states: boolean[] = [];
    const taken: (FileList | undefined)[] = [];
    const el = document.createElement('div');
    for (const [name, fn] of Object.entries(dropTarget((on) => states.push(on), (f) => taken.push(f)))) {
      el.addEventListener(name.slice(2), fn as EventListener);
    }
    const files = [new File(['x'], 'a.csv')] as unknown as FileList;
    const ev = (type: string) => {
      const e = new Event(type, { cancelable: true });
      Object.defineProperty(e, 'dataTransfer', { value: { files } });
      el.dispatchEvent(e);
      return e;
    };
    expect(ev('dragover').defaultPrevented).toBe(true); // without it the browser opens the file
    ev('dragleave');
    ev('dragover');
    expect(ev('drop').defaultPrevented).toBe(true);
    expect(states).toEqual([true, false, true, false]);
    expect(taken).toEqual([files]);
  });
});

describe('chooseFiles', () => {
  it('opens the page’s file input in a browser, and Go’s dialog in the window, its error in words', async () => {
    const { chooseFiles } = await import('./filedrop');
    const input = document.createElement('input');
    let clicks = 0;
    input.addEventListener('click', () => clicks++);
    const used: string[] = [];
    const failed: string[] = [];
    const pick = vi.fn(async () => '/home/me/a.csv');
    await chooseFiles(input, pick, (p) => used.push(p), (w) => failed.push(w));
    expect([clicks, pick.mock.calls.length, used.length]).toEqual([1, 0, 0]);

    (window as any).go = { app: { Calls: { Call: () => {} } } };
    await chooseFiles(input, pick, async (p) => used.push(p), (w) => failed.push(w));
    await chooseFiles(input, async () => Promise.reject(new Error('no dialog here')), (p) => used.push(p), (w) => failed.push(w));
    await chooseFiles(input, pick, async () => Promise.reject('unreadable'), (w) => failed.push(w));
    delete (window as any).go;
    expect(clicks).toBe(1);
    expect(used).toEqual(['/home/me/a.csv']);
    expect(failed).toEqual(['no dialog here', 'unreadable']);
  });
});
