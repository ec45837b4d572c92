import { describe, expect, it } from 'vitest';
import { actionLine } from './actionuse';

// The model-facing texts are what backend/core/actions_call.go feeds.
describe('actionLine', () => {
  it('says a declined call in the user’s words, never the model’s', () => {
    const error = 'the call was declined: GET getForecast needs confirming and the user declined it; it was not made';
    const line = actionLine({ fed: `(not called: ${error}. Do not call it again unless the user asks; answer without it.)`, error });
    expect(line).toBe('You declined this call: it was not made.');
    expect(line).not.toMatch(/Do not call|unless the user asks/);
  });
  it('says why a call nobody could confirm was not made', () => {
    const error = 'the call was declined: POST book needs confirming and nobody was there to confirm it (no terminal; --yes allows such calls); it was not made';
    expect(actionLine({ fed: '', error })).toMatch(/^Not made: it needs your confirmation/);
  });
  it('shows the first line of what a made call answered', () => {
    expect(actionLine({ fed: 'HTTP 200\n{"temp": 3}', error: '' })).toBe('HTTP 200');
  });
  it('says a failed call failed', () => {
    expect(actionLine({ fed: '(the call failed: timeout)', error: 'timeout' })).toBe('The call failed: timeout');
  });
});
