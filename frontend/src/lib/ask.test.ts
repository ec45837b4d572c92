import { describe, expect, it } from 'vitest';
import { applyEvent, cellSummary, defaultChoice, fitWarning, liveTranscript, modelChoices, proseOf, stopLine, type Cell, type Server } from './ask';

const cell = (over: Partial<Cell> = {}): Cell => ({
  code: "print('x')",
  via: 'tool_call',
  fed: '',
  result: { exit_code: 0, stdout: 'x\n', stderr: '', files: [{ name: 'plot-001.png', kind: 'plot', size: 10, path: '/p', data_url: 'data:image/png;base64,AA' }], duration_ms: 1200 },
  ...over,
});

describe('applyEvent', () => {
  it('streams text and thinking into turns and puts plots where they were made', () => {
    const t = liveTranscript('q');
    applyEvent(t, { conversation_id: 'c', type: 'reasoning', turn: 0, text: 'think' });
    applyEvent(t, { conversation_id: 'c', type: 'token', turn: 0, text: 'Let me ' });
    applyEvent(t, { conversation_id: 'c', type: 'token', turn: 0, text: 'check.' });
    applyEvent(t, { conversation_id: 'c', type: 'code', turn: 0, text: '{"code":' });
    expect(t.turns[0].code).toBe('{"code":');
    applyEvent(t, { conversation_id: 'c', type: 'cell_start', turn: 0, cell: cell() });
    expect(t.turns[0].cells![0].running).toBe(true);
    expect(t.turns[0].code).toBeUndefined();
    applyEvent(t, { conversation_id: 'c', type: 'cell_done', turn: 0, cell: cell() });
    applyEvent(t, { conversation_id: 'c', type: 'token', turn: 1, text: 'South.' });
    expect(t.turns[0].text).toBe('Let me check.');
    expect(t.turns[0].reasoning).toBe('think');
    expect(t.turns[0].cells).toHaveLength(1);
    expect(t.turns[0].cells![0].running).toBe(false);
    expect(t.files.map((f) => f.name)).toEqual(['plot-001.png']);
    expect(t.turns[1].text).toBe('South.');
  });
});

describe('helpers', () => {
  it('summarises a cell', () => {
    expect(cellSummary(cell())).toBe('ran, 1 plot, 1.2 s');
    expect(cellSummary(cell({ result: { ...cell().result, exit_code: 1, files: [] } }))).toBe('failed (exit 1), 1.2 s');
    expect(cellSummary(cell({ running: true }))).toBe('running…');
  });
  it('drops the fenced block that ran from the prose', () => {
    const c = cell({ via: 'fenced', code: "print('x')\n" });
    expect(proseOf({ text: "I will look.\n\n```python\nprint('x')\n```", cells: [c] })).toBe('I will look.');
    expect(proseOf({ text: 'No code here.' })).toBe('No code here.');
  });
  it('says a stopped answer keeps the part that came', () => {
    const t = liveTranscript('q');
    t.stopped = 'canceled';
    expect(stopLine(t)).toBe('Stopped.');
    t.answer = 'South had the most';
    expect(stopLine(t)).toBe('Stopped: the part of the answer that came is kept.');
  });
  it('says why a question stopped', () => {
    const t = liveTranscript('q');
    t.stopped = 'loop';
    t.note = 'The model asked to run the same code again';
    expect(stopLine(t)).toContain('same code');
    t.stopped = 'answered';
    expect(stopLine(t)).toBe('');
  });
  it('lists tool-calling models first and marks another machine', () => {
    const ch = modelChoices([
      { kind: 'ollama', name: 'Ollama', base_url: 'http://127.0.0.1:11434/v1', loopback: true, models: [{ id: 'gemma2:2b', tools: 'no' }, { id: 'qwen2.5:7b', tools: 'yes', fit: 'will not fit in your VRAM (needs 6 GiB, 0 GiB here): it runs on the CPU, several times slower' }] },
      { kind: 'openai', name: 'OpenAI-compatible server', base_url: 'http://10.0.0.2:8000/v1', loopback: false, models: [{ id: 'big', tools: 'unknown' }] },
    ]);
    expect(ch[0].model).toBe('qwen2.5:7b');
    expect(ch.find((c) => c.model === 'big')!.label).toContain('another machine');
    expect(ch[0].label).toContain('will not fit in your VRAM');
  });
  it('warns when the chosen model will not fit, and finds an assistant\'s default model', () => {
    const servers: Server[] = [
      { kind: 'ollama', name: 'Ollama', base_url: 'http://127.0.0.1:11434/v1', loopback: true, models: [
        { id: 'qwen2.5:7b', tools: 'yes', fit: 'fits in your VRAM (5.4 GiB of 24 GiB)' },
        { id: 'qwen2.5:32b', tools: 'yes', fit: 'will not fit in your VRAM (needs 20 GiB, 8 GiB here): expect about 1.1 tok/s on the CPU' },
      ] },
    ];
    expect(fitWarning(servers, 'http://127.0.0.1:11434/v1', 'qwen2.5:7b')).toBe('');
    expect(fitWarning(servers, 'http://127.0.0.1:11434/v1', 'qwen2.5:32b')).toBe('qwen2.5:32b will not fit in your VRAM (needs 20 GiB, 8 GiB here): expect about 1.1 tok/s on the CPU');
    const ch = modelChoices(servers);
    expect(defaultChoice(ch, 'qwen2.5:32b')).toBe('http://127.0.0.1:11434/v1|qwen2.5:32b');
    expect(defaultChoice(ch, 'llama3.1:8b')).toBe('');
    expect(defaultChoice(ch, undefined)).toBe('');
  });
  it('says a cell was interrupted', () => {
    expect(cellSummary(cell({ result: { exit_code: 1, stdout: '', stderr: 'KeyboardInterrupt', files: [], duration_ms: 10, interrupted: true } }))).toBe('interrupted');
  });
});
