// Which model answers in Ask: the model servers found (the default ports,
// the servers kept in Settings, a URL the user types), their models as
// choices, and the one chosen ("server|model"), which follows the assistant.
import { message } from './api';
import * as api from './gen/api.gen';
import { defaultChoice, fitWarning, modelChoices, type Server } from './ask';
import { mergeServers, rememberedChoice } from './askserver';
import { readsImages } from './vision';

/** The assistant Ask asks with now: its id ('' for none) and default model. */
export type Asker = () => { id: string; model?: string };

export class AskModels {
  servers = $state<Server[]>([]);
  prefs = $state<api.llm.ServerPrefs | null>(null);
  choice = $state(''); // "server|model"
  hint = $state(''); // how to start a model server, when none answers
  serverURL = $state(''); // a server the user names (another port, another machine)
  urlProblem = $state(''); // why the named server gave no models: said once, in the no-model card
  looking = $state(true);
  named = $state(''); // the server the user named here, once it answered

  choices = $derived(modelChoices(this.servers));
  chosenModel = $derived(this.choice ? this.choice.split('|')[1] : '');
  chosenServer = $derived(this.servers.find((s) => s.base_url === (this.choice ? this.choice.split('|')[0] : '')));
  // A carried model (no URL: rehome starts it) has a context length of its own to set.
  chosenCarried = $derived(!!this.choice && this.choice.split('|')[0] === '');
  fit = $derived(this.choice ? fitWarning(this.servers, this.choice.split('|')[0], this.chosenModel) : '');
  // Images among the files are shown to a model that reads images (and
  // stay at /mnt/data for the code either way).
  sees = $derived(this.choice ? readsImages(this.servers, this.choice) : false);

  private asker: Asker;
  private lastAssistant = '';
  private lookGen = 0;

  constructor(asker: Asker) {
    this.asker = asker;
  }

  private has(key: string) {
    return this.choices.some((c) => `${c.server}|${c.model}` === key);
  }

  /**
   * The choice follows the assistant: its default model, else what was
   * last asked with it (kept in Settings), else the last overall. Run in an
   * effect: it reads what it depends on.
   */
  follow() {
    const { id, model } = this.asker();
    const c = this.choices;
    if (id === this.lastAssistant && this.choice && this.has(this.choice)) return;
    this.lastAssistant = id;
    // A server the user named on this screen is looked at first.
    const pool = this.named ? c.filter((x) => x.server === this.named) : [];
    const r = (pool.length ? defaultChoice(pool, model) : '') || defaultChoice(c, model) || (pool.length ? rememberedChoice(pool, this.prefs, id) : '') || rememberedChoice(c, this.prefs, id, model);
    if (r) this.choice = r;
  }

  // Looks at the default ports and every server kept in Settings (or only
  // at the URL typed), and keeps a typed URL that answered.
  // Only the newest look counts: the look at start (the default ports) could
  // end after the one for a typed URL and put back a list without it, which
  // left no model chosen and Ask disabled (e2e askllama, at load 18).
  async refresh() {
    const gen = ++this.lookGen;
    this.looking = true;
    this.urlProblem = '';
    const typed = this.serverURL.trim();
    const picked = this.choice; // a model the user picks while rehome looks stays picked
    try {
      const kept0 = await api.ModelServers().catch(() => this.prefs);
      if (gen !== this.lookGen) return;
      this.prefs = kept0;
      const kept = this.prefs?.servers ?? [];
      const urls = [...new Set(['', ...kept, ...(typed ? [typed] : [])])];
      const lists = await Promise.all(
        urls.map((u) =>
          api.LLMStatus(u).catch((e) => {
            if (u === typed) this.urlProblem = message(e);
            return [] as Server[];
          }),
        ),
      );
      if (gen !== this.lookGen) return;
      this.servers = mergeServers(...lists);
      const answered = typed ? (lists[urls.indexOf(typed)]?.[0]?.base_url ?? '') : '';
      this.named = answered;
      // A server the user just named is the one meant: its model is chosen
      // (tool-calling first), the others stay listed beside it. Chosen at
      // once, with the list: a model the user picks from the list after it
      // shows stays picked (it was overwritten after the hint's await).
      const first = answered ? this.choices.find((c) => c.server === answered) : undefined;
      if (first && this.choice === picked && !this.choice.startsWith(answered + '|')) this.choice = `${first.server}|${first.model}`;
      else if (!this.has(this.choice)) this.choice = rememberedChoice(this.choices, this.prefs, this.asker().id, this.asker().model);
      if (typed && answered && this.prefs && !kept.includes(answered)) {
        this.prefs = await api.SetModelServers({ ...this.prefs, servers: [...kept, answered] }).catch(() => this.prefs);
      }
      this.hint = await api.LLMHintFor(this.asker().id);
    } finally {
      if (gen === this.lookGen) this.looking = false;
    }
  }

  /**
   * A kept conversation goes on against the server and model it was asked
   * on (looked at again when it is not listed): chosen when it answers,
   * else false. assistantId is the conversation's, chosen with it.
   */
  async reopen(assistantId: string, server: string, model: string): Promise<boolean> {
    this.lastAssistant = assistantId;
    const key = `${server}|${model}`;
    if (server && !this.has(key)) {
      const more = await api.LLMStatus(server).catch(() => [] as Server[]);
      this.servers = mergeServers(this.servers, more);
    }
    if (!this.has(key)) return false;
    this.choice = key;
    return true;
  }
}
