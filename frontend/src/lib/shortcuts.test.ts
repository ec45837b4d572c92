import { describe, expect, it } from 'vitest';
import { actionFor, isTyping, shortcutSheet } from './shortcuts';

const k = (over: Partial<KeyboardEvent>) => ({ key: '', code: '', ctrlKey: false, shiftKey: false, altKey: false, metaKey: false, ...over });

describe('global shortcuts', () => {
  it('maps the sheet, a new conversation, the sidebar and the screens', () => {
    expect(actionFor(k({ key: '/', code: 'Slash', ctrlKey: true }), true)).toEqual({ kind: 'sheet' });
    expect(actionFor(k({ key: 'O', code: 'KeyO', ctrlKey: true, shiftKey: true }), true)).toEqual({ kind: 'new-conversation' });
    expect(actionFor(k({ key: 'b', code: 'KeyB', ctrlKey: true }), false)).toEqual({ kind: 'toggle-sidebar' });
    expect(actionFor(k({ key: '!', code: 'Digit1', ctrlKey: true, shiftKey: true }), false)).toEqual({ kind: 'screen', screen: 'hardware' });
    expect(actionFor(k({ key: '^', code: 'Digit6', ctrlKey: true, shiftKey: true }), false)).toEqual({ kind: 'screen', screen: 'settings' });
  });
  it('focuses the input with Shift+Esc anywhere and / when not typing', () => {
    expect(actionFor(k({ key: 'Escape', shiftKey: true }), true)).toEqual({ kind: 'focus-input' });
    expect(actionFor(k({ key: '/' }), false)).toEqual({ kind: 'focus-input' });
    expect(actionFor(k({ key: '/' }), true)).toBeNull();
  });
  it("leaves the screens' own keys alone", () => {
    expect(actionFor(k({ key: '1', code: 'Digit1', altKey: true }), false)).toBeNull(); // Code Interpreter's analyses
    expect(actionFor(k({ key: 'Enter', ctrlKey: true }), true)).toBeNull();
    expect(actionFor(k({ key: 'Escape' }), false)).toBeNull();
  });
  it('every sheet row names keys and what they do', () => {
    for (const s of shortcutSheet) expect(s.keys && s.what).toBeTruthy();
  });
  it('knows text fields', () => {
    expect(isTyping(document.createElement('textarea'))).toBe(true);
    expect(isTyping(document.createElement('button'))).toBe(false);
  });
});
