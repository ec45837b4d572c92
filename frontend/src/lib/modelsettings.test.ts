import { describe, expect, it } from 'vitest';
import { contextWords, fromForm, settingsLine, toForm } from './modelsettings';

describe("a model's settings form", () => {
  it('reads what was typed, empty fields left to the server', () => {
    expect(fromForm({ temperature: ' 0.2 ', context: '4096', system_prompt: '  Answer in French. ' })).toEqual({ settings: { temperature: 0.2, context: 4096, system_prompt: 'Answer in French.' } });
    expect(fromForm({ temperature: '', context: '', system_prompt: ' ' })).toEqual({ settings: {} });
    expect(fromForm({ temperature: '0', context: '', system_prompt: '' })).toEqual({ settings: { temperature: 0 } });
  });
  it('says in words what is out of range', () => {
    expect(fromForm({ temperature: '3', context: '', system_prompt: '' })).toEqual({ error: expect.stringContaining('0 to 2') });
    expect(fromForm({ temperature: 'hot', context: '', system_prompt: '' })).toEqual({ error: expect.stringContaining('Temperature') });
    expect(fromForm({ temperature: '', context: '100', system_prompt: '' })).toEqual({ error: expect.stringContaining('512') });
    expect(fromForm({ temperature: '', context: '4096.5', system_prompt: '' })).toEqual({ error: expect.stringContaining('whole number') });
  });
  it('shows saved settings back in the form', () => {
    expect(toForm({ temperature: 0, context: 2048 })).toEqual({ temperature: '0', context: '2048', system_prompt: '' });
    expect(toForm(undefined)).toEqual({ temperature: '', context: '', system_prompt: '' });
  });
  it('says what a question goes with, and who decides the context', () => {
    expect(settingsLine({ temperature: 0.2, context: 4096, system_prompt: 'x' }, true)).toBe('temperature 0.2 · context 4,096 tokens · its own system prompt');
    expect(settingsLine({ context: 4096 }, false)).toBe('context: the server decides');
    expect(settingsLine({}, true)).toBe('');
    expect(contextWords(true)).toContain('-c');
    expect(contextWords(false)).toContain('the server decides');
  });
});
