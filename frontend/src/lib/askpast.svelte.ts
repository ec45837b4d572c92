// Ask's kept conversations: the list (the newest 200), a search of them
// (rehome reads the questions and answers too; the titles already listed
// answer at once while it does), and renaming and deleting one.
import * as api from './gen/api.gen';
import { searchConversations } from './ask';

type Summary = api.llm.ConversationSummary;

export class PastConversations {
  past = $state<Summary[]>([]);
  search = $state('');
  found = $state<Summary[] | null>(null); // rehome's answer to the search
  shown = $derived(this.found ?? searchConversations(this.past, this.search));
  private seq = 0;

  /** Asks rehome for the search, 150 ms after the last key; run in an effect (it returns the cleanup). */
  lookUp(): (() => void) | undefined {
    const q = this.search.trim();
    const seq = ++this.seq;
    if (!q) {
      this.found = null;
      return;
    }
    const t = setTimeout(async () => {
      try {
        const got = (await api.SearchConversations(q, 200)) ?? [];
        if (seq === this.seq) this.found = got;
      } catch {
        if (seq === this.seq) this.found = null;
      }
    }, 150);
    return () => clearTimeout(t);
  }

  async refresh() {
    try {
      this.past = await api.ListConversations(200);
    } catch {
      this.past = [];
    }
  }

  has(id: string) {
    return this.past.some((p) => p.id === id);
  }

  /** Renames a conversation in rehome and in the lists; the title it keeps. */
  async rename(id: string, title: string): Promise<string> {
    const saved = await api.RenameConversation(id, title);
    const retitle = (l: Summary[]) => l.map((p) => (p.id === id ? { ...p, title: saved.title } : p));
    this.past = retitle(this.past);
    if (this.found) this.found = retitle(this.found);
    return saved.title;
  }

  async remove(id: string) {
    await api.DeleteConversation(id);
    this.past = this.past.filter((p) => p.id !== id);
    if (this.found) this.found = this.found.filter((p) => p.id !== id);
  }
}
