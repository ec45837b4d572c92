// The Code Interpreter's run in progress: which cell, the run's id once
// the sandbox names it, its stage and message, since when its code runs
// (on the sandbox's clock), whether a stop was asked, and a clock for the
// live status line.
import type { Cell } from './runs';
import { interruptSession, stopRun, type RunEvent } from './sandbox';

export type Running = { key: string; id: string; stage: string; message: string; since: number; runningSince: number; stopAsked: boolean };

export class LiveRun {
  running = $state<Running | null>(null);
  now = $state(Date.now());
  private timer: ReturnType<typeof setInterval> | undefined;

  /** A stop was asked of the run in progress. */
  get stopAsked(): boolean {
    return !!this.running?.stopAsked;
  }

  /** The cell with this key starts running. */
  begin(key: string) {
    this.running = { key, id: '', stage: '', message: '', since: Date.now(), runningSince: 0, stopAsked: false };
    this.now = Date.now();
    this.timer = setInterval(() => (this.now = Date.now()), 100);
  }

  /** The run ended: how long its code ran in ms (undefined when it never ran). */
  end(): number | undefined {
    clearInterval(this.timer);
    const ms = this.running?.runningSince ? Date.now() - this.running.runningSince : undefined;
    this.running = null;
    return ms;
  }

  /**
   * Asks the run to stop: a KeyboardInterrupt to the session (sessionId)
   * when its cell runs in one, else the sandbox stops the run; false when
   * nothing runs.
   */
  stop(cell: Cell | undefined, sessionId: string): boolean {
    const r = this.running;
    if (!r) return false;
    r.stopAsked = true;
    r.stage = 'stopping';
    if (cell?.session && sessionId) interruptSession(sessionId).catch(() => {});
    else if (r.id) stopRun(r.id).catch(() => {});
    return true;
  }

  /**
   * A progress event of the sandbox: the run's id, stage and clock, or
   * output for the running cell (cell), kept to 200 000 characters.
   * sessionId: the file's session, '' for none (a stop asked before the
   * run had an id reaches the run once it has one).
   */
  progress(ev: RunEvent, cell: Cell | undefined, sessionId: string) {
    const r = this.running;
    if (!r) return;
    if (!r.id && ev.run_id) {
      r.id = ev.run_id;
      if (r.stopAsked && !sessionId) stopRun(ev.run_id).catch(() => {});
    }
    if (ev.run_id && r.id && ev.run_id !== r.id) return;
    if (ev.stage === 'output') {
      if (cell && (cell.live?.length ?? 0) < 200_000) cell.live = (cell.live ?? '') + (ev.text ?? '');
      return;
    }
    if (r.stopAsked && ev.stage !== 'done') return;
    r.stage = ev.stage;
    r.message = ev.message ?? '';
    if (ev.stage === 'running') {
      // The sandbox counts from the container's start; follow its clock.
      const since = Date.now() - (ev.elapsed_ms ?? 0);
      if (!r.runningSince || Math.abs(r.runningSince - since) > 300) r.runningSince = since;
    }
  }
}
