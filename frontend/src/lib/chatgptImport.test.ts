import { describe, expect, it } from 'vitest';
import { isChatGPTExport, progressText, reportLines, type ImportReport } from './chatgptImport';

describe('ChatGPT export import', () => {
  it('knows an export by its name', () => {
    // The name ChatGPT gives its export (All-Dings/Gpt-to-Markdown, a77f608, keeps one).
    expect(isChatGPTExport('/home/u/Downloads/2caf99588ce3b56369a065320c62abbca2b26165e7c4a08cb1c4b7d1926eb09a-2025-08-31-08-31-35-2177469bc11f492c90c7e94457c2868b.zip')).toBe(true);
    expect(isChatGPTExport('/home/u/sales-2025.zip')).toBe(false);
    expect(isChatGPTExport('/home/u/tutor.rehome.zip')).toBe(false);
    expect(isChatGPTExport('/tmp/conversations.json')).toBe(true);
    expect(isChatGPTExport('C:\\x\\conversations-pretty.json')).toBe(true);
    expect(isChatGPTExport('/tmp/sales.csv')).toBe(false);
    expect(isChatGPTExport('/tmp/gpt.json')).toBe(false);
  });

  it('says how far it is', () => {
    expect(progressText({ read: 150 << 20, size: 300 << 20, seen: 2500, imported: 2400, unchanged: 0, skipped: 1, title: 'x', done: false })).toBe(
      'Importing: 2500 conversations read, 2400 imported — 150 MiB of 300 MiB (50%)',
    );
  });

  it('reports per GPT and what was refused', () => {
    const r: ImportReport = {
      file: 'e.zip', format: 'zip', read: 1, size: 1, seen: 5, imported: 4, unchanged: 0, skipped: 1, title: '', done: true, replaced: 1,
      skips: [{ title: 'loop', id: 'c1', why: 'its message tree loops back on itself' }],
      filed: [{ gizmo_id: 'g-1', conversations: 1 }, { gizmo_id: 'g-2', assistant_name: 'Tutor', conversations: 2 }],
      plain_chats: 1, branches: 1, dropped_branches: 0, hidden_messages: 3, files: 0, file_bytes: 0,
    };
    const lines = reportLines(r);
    expect(lines[0]).toBe('Imported 4 conversations (3 new, 1 updated); 0 unchanged since an earlier import; 1 not imported.');
    expect(lines[1]).toBe('2 with the GPT g-2, filed under “Tutor”.');
    expect(lines[2]).toContain('they join its assistant once you import it');
    expect(lines.at(-1)).toBe('Not imported: “loop”: its message tree loops back on itself');
  });
});
