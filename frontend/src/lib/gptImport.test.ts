import { describe, expect, it } from 'vitest';
import { actionAuthText, filesText, gptHead, gptLines, hasGPTs } from './gptImport';
import type { assistant } from './gen/api.gen';

// The shapes are what PreviewAssistants returns for the real store record
// backend/assistant/testdata/gpts/humanizer_oauth.json and song_maker_files.json.
const humanizer = {
  index: 0,
  source_id: 'g-2azCVmXdy',
  name: 'AI Humanizer',
  imported: true,
  warnings: [],
  assistant: {
    name: 'AI Humanizer', gizmo_id: 'g-2azCVmXdy', instructions: '', starters: ['⬇️ Please provide BELOW the AI text to humanize ⬇️'],
    capabilities: [], remote_files: [],
    actions: [{ schema: '{}', auth: 'oauth', privacy_url: '', name: 'gptinf-plugin', domain: 'plugin.gptinf.com', oauth: { client_id: '', auth_url: 'https://plugin.gptinf.com/api/oauth', token_url: 'https://plugin.gptinf.com/api/oauth_exchange' } }],
  },
} as unknown as assistant.ImportItem;

describe('GPT import words', () => {
  it('says an OAuth action waits for its client', () => {
    expect(actionAuthText(humanizer.assistant!.actions[0])).toBe('gptinf-plugin (plugin.gptinf.com): OAuth sign-in — waits for its OAuth client (client id and secret)');
    expect(actionAuthText({ schema: '', auth: 'api_key', privacy_url: '', name: 'adobe', signing: 'header', header: 'Authorization' })).toContain('an API key in the Authorization header');
  });
  it('counts files to bring by type, leaving filled ones out', () => {
    const files = [
      { tool: 'knowledge', kind: 'gpt_file', id: 'a', type: 'application/zip' },
      { tool: 'knowledge', kind: 'gpt_file', id: 'b', type: 'application/zip' },
      { tool: 'knowledge', kind: 'gpt_file', id: 'c', type: '' },
      { tool: 'knowledge', kind: 'gpt_file', id: 'd', type: 'text/plain', filled: 'abc' },
    ] as assistant.RemoteFile[];
    expect(filesText(files)).toBe('3 files to bring: 2 application/zip, 1 unknown type');
  });
  it('heads a preview with what will happen', () => {
    expect(gptHead(humanizer, true)).toBe('Adds “AI Humanizer” (g-2azCVmXdy)');
    expect(gptHead({ ...humanizer, updated: true }, false)).toBe('Updated “AI Humanizer” (g-2azCVmXdy)');
    expect(gptLines(humanizer)).toContain('Instructions: not in this record (the owner’s export has them)');
    expect(gptLines(humanizer)[0]).toBe('Had: 1 action');
    expect(hasGPTs([humanizer])).toBe(true);
  });
});
