// How an action call of an answer reads on screen: in the user's words.
// The model is fed its own text ("(not called: … Do not call it again
// unless the user asks …)", backend/core/actions_call.go); the user sees
// what happened.
import type { llm } from './gen/api.gen';

/** One line for an action call: what it answered, or why it was not made. */
export function actionLine(u: Pick<llm.ToolUse, 'fed' | 'error'>): string {
  const err = (u.error ?? '').trim();
  if (!err) return firstLine(u.fed);
  if (/the user declined it/.test(err)) return 'You declined this call: it was not made.';
  if (/nobody was there to confirm/.test(err)) return 'Not made: it needs your confirmation, and nobody was there to give it.';
  if (/^the call was declined/.test(err)) return 'Not made: ' + err.replace(/^the call was declined:\s*/, '').replace(/; it was not made\.?$/, '') + '.';
  if (/^\(not called|refused|not allowed/i.test(err)) return 'Not made: ' + err.replace(/^\(not called:\s*/, '').replace(/\)$/, '');
  return 'The call failed: ' + err;
}

/** Whether the call was made at all (a declined or refused one was not). */
export function actionMade(u: Pick<llm.ToolUse, 'error'>): boolean {
  return !u.error;
}

function firstLine(s: string): string {
  return (s ?? '').split('\n')[0];
}
