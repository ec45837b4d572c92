// A call to rehome as a panel shows it: whether it is under way (busy: a
// button disabled, "Saving…") and the words of its last failure (error: the
// panel's error box). A panel writes `busy = true; try { x = await
// api.Call(); error = ''; } catch (e) { error = message(e); } finally {
// busy = false; }` as `await c.run(async () => { x = await api.Call(); })`,
// and the same without a busy flag as `c.attempt(…)`.
import { message } from './api';

export class Call {
  busy = $state(false);
  error = $state('');
  private calls = 0;

  /** busy: true where the panel shows the call under way before it starts (a first load). */
  constructor(busy = false) {
    this.busy = busy;
  }

  /**
   * Runs work with busy set until it ends (until the last one ends, when a
   * second starts before the first has), its error kept as attempt keeps
   * it. Resolves to what work gave, or undefined when it threw; never
   * rejects.
   */
  async run<T>(work: () => Promise<T>): Promise<T | undefined> {
    this.calls++;
    this.busy = true;
    try {
      return await this.attempt(work);
    } finally {
      if (--this.calls === 0) this.busy = false;
    }
  }

  /**
   * Runs work, busy left as it is (a call the panel shows no progress of,
   * its failure in the same error box): error is '' once work succeeds, its
   * words when it throws, and stays as it was while work runs (a panel that
   * starts afresh clears it first). Resolves to what work gave, or undefined
   * when it threw; never rejects.
   */
  async attempt<T>(work: () => Promise<T>): Promise<T | undefined> {
    try {
      const got = await work();
      this.error = '';
      return got;
    } catch (e) {
      this.error = message(e);
      return undefined;
    }
  }
}
