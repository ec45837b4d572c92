import { describe, expect, it } from 'vitest';
import { mergeServers, rememberedChoice } from './askserver';
import { applyEvent, liveTranscript, type Cell } from './ask';
import type { llm } from './gen/api.gen';

const choices = [
  { server: 'http://127.0.0.1:11434/v1', model: 'qwen2.5:7b' },
  { server: 'http://127.0.0.1:11434/v1', model: 'gemma2:2b' },
  { server: 'http://10.0.0.2:8080/v1', model: 'tiny' },
];
const prefs = (over: Partial<llm.ServerPrefs> = {}): llm.ServerPrefs => ({ schema: 1, servers: [], last: { server: '', model: '' }, per_assistant: {}, ...over });

describe('the server and model Ask opens with', () => {
  it("takes the assistant's default model first", () => {
    expect(rememberedChoice(choices, prefs({ per_assistant: { a: choices[2] } }), 'a', 'gemma2:2b')).toBe('http://127.0.0.1:11434/v1|gemma2:2b');
  });
  it('then the one last used with the assistant, then the last overall, then the first', () => {
    const p = prefs({ per_assistant: { a: choices[2] }, last: choices[1] });
    expect(rememberedChoice(choices, p, 'a')).toBe('http://10.0.0.2:8080/v1|tiny');
    expect(rememberedChoice(choices, p, 'b')).toBe('http://127.0.0.1:11434/v1|gemma2:2b');
    expect(rememberedChoice(choices, prefs(), '')).toBe('http://127.0.0.1:11434/v1|qwen2.5:7b');
  });
  it('skips a remembered model no server offers now', () => {
    expect(rememberedChoice(choices, prefs({ last: { server: 'http://gone/v1', model: 'x' } }), '')).toBe('http://127.0.0.1:11434/v1|qwen2.5:7b');
    expect(rememberedChoice([], prefs(), '')).toBe('');
  });
  it('merges the servers of several lookups once each', () => {
    const s = (u: string) => ({ kind: 'ollama', name: 'Ollama', base_url: u, loopback: true, models: [] }) as llm.Server;
    expect(mergeServers([s('a'), s('b')], [s('b'), s('c')]).map((x) => x.base_url)).toEqual(['a', 'b', 'c']);
  });
});

describe('live output of a running cell', () => {
  it('goes to the running cell as it comes', () => {
    const t = liveTranscript('q');
    const cell = { code: 'print(1)', via: 'tool_call', fed: '', result: null } as unknown as Cell;
    applyEvent(t, { conversation_id: 'c', type: 'cell_start', turn: 0, cell });
    applyEvent(t, { conversation_id: 'c', type: 'output', turn: 0, text: 'step 1\n', stream: 'stdout' });
    applyEvent(t, { conversation_id: 'c', type: 'output', turn: 0, text: 'step 2\n', stream: 'stdout' });
    expect(t.turns[0].cells![0].live).toBe('step 1\nstep 2\n');
  });
});
