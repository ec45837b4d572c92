// The open file's Python session in the Code Interpreter: its own Python
// that keeps state between cells, started as soon as the file is opened (a
// warm start). Without one (no sandbox yet, or it failed) cells run one-shot.
import { message } from './api';
import * as api from './gen/api.gen';
import { exportSession, restartSession, startSession } from './sandbox';

export type SessionState = 'starting' | 'ready' | 'failed' | 'restarting';
export type Session = { path: string; id: string; state: SessionState; error: string };

export class CodeSession {
  current = $state<Session | null>(null);
  /** The newest start, done when the session is ready or failed. */
  started: Promise<void> | null = null;

  /** Starts the session of the file at path; the previous file's ends (no container left running unseen). */
  open(path: string): Promise<void> {
    if (this.current?.id && this.current.path !== path) api.StopSession(this.current.id).catch(() => {});
    this.current = { path, id: '', state: 'starting', error: '' };
    const p = startSession(path)
      .then((info) => {
        if (this.current?.path === path) this.current = { path, id: info.id, state: 'ready', error: '' };
      })
      .catch((e) => {
        if (this.current?.path === path) this.current = { path, id: '', state: 'failed', error: message(e) };
      });
    this.started = p;
    return p;
  }

  /** A fresh Python for the file: variables gone, files kept. */
  async restart() {
    if (!this.current?.id) return;
    this.current.state = 'restarting';
    try {
      await restartSession(this.current.id);
    } finally {
      if (this.current) this.current.state = 'ready';
    }
  }

  /** Downloads the session's cells as a notebook or a Python file named after the file (name). */
  async exportAs(format: 'ipynb' | 'py', name: string) {
    if (!this.current?.id) return;
    const text = await exportSession(this.current.id, format);
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([text], { type: format === 'ipynb' ? 'application/x-ipynb+json' : 'text/x-python' }));
    a.download = `${name.replace(/\.[^.]+$/, '')}.${format}`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  }
}
