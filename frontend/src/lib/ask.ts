// Ask in words: the conversation screen's model. Events from Go
// ("ask:event") are folded into turns as they stream: visible text,
// folded thinking, cells (code, output, plots) where they were made.
import type { app, llm } from './gen/api.gen';

export type OutFile = llm.OutFile;
export type CellResult = llm.CellResult;
/** A cell as the screen shows it: running until its result comes. */
export interface Cell extends llm.Cell {
  running?: boolean;
  /** What the running cell printed so far (stdout and stderr as they came). */
  live?: string;
}
export interface Turn extends Omit<llm.Turn, 'cells'> {
  cells?: Cell[];
  code?: string; // code being written (tool-call fragments), before the cell starts
}
export interface Transcript extends Omit<llm.Transcript, 'turns'> {
  turns: Turn[];
}
export interface Conversation extends Omit<llm.Conversation, 'exchanges'> {
  exchanges: Transcript[];
}
/** An "ask:event": a piece of the answer as it streams. */
export type AskEvent = app.AskEvent;
export type ModelInfo = llm.ModelInfo;
export type Server = llm.Server;
/** A transcript being answered, built from events. */
export function liveTranscript(question: string): Transcript {
  return { question, model: '', server: '', mode: '', turns: [], answer: '', files: [], stopped: '', started: new Date().toISOString(), duration_ms: 0 };
}

/** Folds one event into t (returns t, changed in place, for Svelte's $state). */
export function applyEvent(t: Transcript, e: AskEvent): Transcript {
  const turn = (i: number): Turn => {
    while (t.turns.length <= i) t.turns.push({ text: '' });
    return t.turns[i];
  };
  switch (e.type) {
    case 'token':
      turn(e.turn).text += e.text ?? '';
      break;
    case 'reasoning': {
      const tu = turn(e.turn);
      tu.reasoning = (tu.reasoning ?? '') + (e.text ?? '');
      break;
    }
    case 'code': {
      const tu = turn(e.turn);
      tu.code = (tu.code ?? '') + (e.text ?? '');
      break;
    }
    case 'cell_start': {
      const tu = turn(e.turn);
      tu.code = undefined;
      tu.cells = [...(tu.cells ?? []), { ...(e.cell as Cell), running: true }];
      break;
    }
    case 'cell_done': {
      const tu = turn(e.turn);
      const cells = tu.cells ?? [];
      const done = { ...(e.cell as Cell), running: false };
      if (cells.length && cells[cells.length - 1].running) cells[cells.length - 1] = done;
      else cells.push(done);
      tu.cells = cells;
      for (const f of done.result?.files ?? []) t.files.push(f);
      break;
    }
    case 'output': {
      // The running cell's print()s, as they come (capped like the Code
      // Interpreter's: the whole output comes with cell_done).
      for (let i = t.turns.length - 1; i >= 0; i--) {
        const c = [...(t.turns[i].cells ?? [])].reverse().find((c) => c.running);
        if (c) {
          if ((c.live?.length ?? 0) < 200_000) c.live = (c.live ?? '') + (e.text ?? '');
          break;
        }
      }
      break;
    }
    case 'note':
      t.note = e.text;
      break;
  }
  return t;
}

/** The text of a turn without a trailing ```python block that ran (it is shown as the cell). */
export function proseOf(turn: Turn): string {
  let s = turn.text;
  for (const c of turn.cells ?? []) {
    if (c.via !== 'fenced') continue;
    const i = s.lastIndexOf('```');
    const j = i > 0 ? s.lastIndexOf('```', i - 1) : -1;
    if (j >= 0 && s.slice(j, i).includes(c.code.trim().split('\n')[0])) s = s.slice(0, j);
  }
  return s.trim();
}

/** What a cell did, in a few words. */
export function cellSummary(c: Cell): string {
  if (c.running) return 'running…';
  if (c.error) return 'could not run: ' + c.error;
  const r = c.result;
  if (r.timed_out) return 'stopped at the time limit';
  if (r.interrupted) return 'interrupted';
  if (r.oom_killed) return 'killed for using too much memory';
  const plots = r.files.filter((f) => f.kind === 'plot').length;
  const files = r.files.length - plots;
  const parts = [r.exit_code === 0 ? 'ran' : `failed (exit ${r.exit_code})`];
  if (plots) parts.push(`${plots} plot${plots > 1 ? 's' : ''}`);
  if (files) parts.push(`${files} file${files > 1 ? 's' : ''}`);
  parts.push(`${(r.duration_ms / 1000).toFixed(1)} s`);
  return parts.join(', ');
}

/** Why the loop stopped, for the user; '' when it answered. */
export function stopLine(t: Transcript): string {
  switch (t.stopped) {
    case 'answered':
    case '':
      return '';
    case 'canceled':
      return t.answer?.trim() ? 'Stopped: the part of the answer that came is kept.' : 'Stopped.';
    default:
      return t.note || t.error || t.stopped;
  }
}

/** The models of the servers found, as choices: server URL + model, tool-calling first. */
export function modelChoices(servers: Server[]): { server: string; model: string; label: string }[] {
  const out: { server: string; model: string; label: string; rank: number }[] = [];
  for (const s of servers) {
    for (const m of s.models) {
      const tools = m.tools === 'yes' ? '' : m.tools === 'no' ? ' — code in python blocks' : ' — tool calling unknown';
      const where = s.loopback ? '' : ' (another machine)';
      const fit = m.fit && !m.fit.startsWith('fits') ? ` — ${m.fit}` : '';
      const eyes = m.vision ? ' · reads images' : '';
      out.push({ server: s.base_url, model: m.id, label: `${m.id} · ${s.name}${eyes}${where}${tools}${fit}`, rank: m.tools === 'yes' ? 0 : 1 });
    }
  }
  return out.sort((a, b) => a.rank - b.rank).map(({ server, model, label }) => ({ server, model, label }));
}

/** The fit warning of the chosen model ("" when it fits or is unknown). */
export function fitWarning(servers: Server[], server: string, model: string): string {
  const m = servers.find((s) => s.base_url === server)?.models.find((m) => m.id === model);
  return m?.fit && !m.fit.startsWith('fits') ? `${model} ${m.fit}` : '';
}

/** The choice ("server|model") for an assistant's default model, '' when no server offers it. */
export function defaultChoice(choices: { server: string; model: string }[], model: string | undefined): string {
  const c = model ? choices.find((c) => c.model === model) : undefined;
  return c ? `${c.server}|${c.model}` : '';
}

/** The answer's time and writing speed: "4.2 s · 38 tokens/s" (speed when the server counted tokens). */
export function answerStats(t: Transcript): string {
  if (!t.duration_ms) return '';
  const parts = [`${(t.duration_ms / 1000).toFixed(1)} s`];
  const last = [...t.turns].reverse().find((tu) => tu.stats);
  const st = last?.stats;
  if (st?.tokens_per_second) parts.push(`${st.tokens_per_second >= 10 ? Math.round(st.tokens_per_second) : st.tokens_per_second.toFixed(1)} tokens/s`);
  if (st?.completion_tokens) parts.push(`${st.completion_tokens} tokens`);
  return parts.join(' · ');
}

/** What the tokens/s figure is, for its tooltip. */
export function statsSource(t: Transcript): string {
  const st = [...t.turns].reverse().find((tu) => tu.stats)?.stats;
  if (!st?.tokens_per_second) return 'The time from the question to the answer.';
  return st.source === 'server' ? "The server's own timing of the answer's writing." : "Tokens the server counted, over the answer's wall time.";
}

/** The citations of an answer: those of the turn that wrote it. */
export function answerCitations(t: Transcript): llm.Citation[] {
  return t.turns.length ? (t.turns[t.turns.length - 1].citations ?? []) : [];
}

/** Conversations whose title, questions or answers hold every word of q. */
export function searchConversations<T extends { title: string; assistant_name?: string; model?: string; exchanges?: { question: string; answer: string }[] | null }>(list: T[], q: string): T[] {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return list;
  return list.filter((c) => {
    const hay = [c.title, c.assistant_name ?? '', c.model ?? '', ...(c.exchanges ?? []).flatMap((t) => [t.question, t.answer])].join('\n').toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/** A conversation's date as a list shows it: the time today, else the day. */
export function shortDate(iso: string, now = new Date()): string {
  const d = new Date(iso);
  if (isNaN(d.getTime())) return '';
  if (d.toDateString() === now.toDateString()) return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const sameYear = d.getFullYear() === now.getFullYear();
  return d.toLocaleDateString([], sameYear ? { day: 'numeric', month: 'short' } : { day: 'numeric', month: 'short', year: 'numeric' });
}
