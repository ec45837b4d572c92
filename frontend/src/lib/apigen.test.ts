import { describe, expect, it, vi } from 'vitest';

// The generated module's functions, against the call() they reach Go through.
const calls = vi.hoisted(() => [] as unknown[][]);
vi.mock('./api', () => ({
  call: async (...args: unknown[]) => {
    calls.push(args);
    return 'answer';
  },
  on: () => () => {},
}));
import * as gen from './gen/api.gen';

describe('the generated API', () => {
  it('has a function per method that calls Go by its name with its arguments', async () => {
    const fns = gen as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    expect(gen.methods.length).toBeGreaterThan(100);
    for (const name of gen.methods) {
      calls.length = 0;
      expect(await fns[name](1, 'two', { three: 3 })).toBe('answer');
      expect(calls).toEqual([[name, 1, 'two', { three: 3 }]]);
      calls.length = 0;
      await fns[name]();
      expect(calls).toEqual([[name]]);
    }
  });

  it('puts the same functions in the service objects', () => {
    expect(gen.SystemService.PickFile).toBe(gen.PickFile);
    expect(gen.AssistantService.ListAssistants).toBe(gen.ListAssistants);
  });
});
