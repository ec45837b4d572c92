// Pulling a model through Ollama where the network allows it (core.Pulls),
// for the Hardware screen: where it would pull from (null until asked, or
// why there is none) and each Ollama tag's pull, kept while its row folds.
import { message, on } from './api';
import * as api from './gen/api.gen';

export type PullState = { progress?: api.llm.PullProgress; error?: string; done?: boolean; busy?: boolean };

export class Pulls {
  source = $state<api.core.PullSource | null>(null);
  state = $state<Record<string, PullState>>({});

  async loadSource() {
    try {
      this.source = await api.PullSource();
    } catch (e) {
      this.source = { why: message(e) };
    }
  }

  async pull(tag: string) {
    this.state[tag] = { busy: true };
    try {
      const last = await api.PullModel(tag);
      this.state[tag] = { progress: last, done: true };
    } catch (e) {
      this.state[tag] = { ...this.state[tag], busy: false, error: message(e) };
    }
  }

  async cancel(tag: string) {
    try {
      await api.CancelPull(tag);
    } catch (e) {
      this.state[tag] = { ...this.state[tag], error: message(e) };
    }
  }

  /** Follows the pulls' progress events; returns the way to stop. */
  listen(): () => void {
    return on('models:pull', (p: api.llm.PullProgress) => {
      const cur = this.state[p.model];
      if (cur?.busy) this.state[p.model] = { ...cur, progress: p };
    });
  }
}
