// The assistants as Go keeps them (backend/assistant), from the generated
// types, and the words and checks of the Assistants screen.
import type { assistant } from './gen/api.gen';

export type Capability = assistant.Capability;
export type KnowledgeFile = assistant.KnowledgeFile;
/** A file the assistant uses that is still on OpenAI's servers. */
export type RemoteFile = assistant.RemoteFile;
export type Action = assistant.Action;
export type Assistant = assistant.Assistant;

/** An assistant being written in the form: Go sets the rest when it is saved. */
export type AssistantDraft = Omit<Assistant, 'schema' | 'created' | 'updated' | 'remote_files'> &
  Partial<Pick<Assistant, 'schema' | 'created' | 'updated' | 'remote_files'>>;
export const capabilityLabels: Record<Capability, string> = {
  web_browsing: 'Web browsing',
  image_generation: 'Image generation',
  code_interpreter: 'Code interpreter & data analysis',
  canvas: 'Canvas',
  memory: 'Memory',
  voice: 'Voice',
  vision: 'Vision (image input)',
  file_uploads: 'File uploads in chat',
  knowledge: 'Knowledge (file search)',
};

export function emptyAssistant(): AssistantDraft {
  return {
    id: '',
    name: '',
    description: '',
    instructions: '',
    starters: [],
    knowledge: [],
    capabilities: [],
    actions: [],
    notes: '',
    welcome_message: '',
    model: '',
    picture: '',
  };
}

/** The name a new assistant is saved under when a file or an action is
 * added before its first Save (the user renames it at will). */
export const draftName = 'Untitled assistant';

/** The largest picture file taken (Go's vision.MaxPictureFile). */
export const maxPictureFile = 5 << 20;
/** The largest schema file read (Go's core.MaxSchemaBytes). */
export const maxSchemaFile = 1 << 20;

/** Why a picture file is refused before it is sent, or ''. */
export function pictureFileProblem(f: { name: string; size: number; type: string }): string {
  if (!/^image\/(png|jpeg|webp)$/.test(f.type) && !/\.(png|jpe?g|webp)$/i.test(f.name)) return `${f.name} is not a PNG, JPEG or WebP picture.`;
  if (f.size > maxPictureFile) return `${f.name} is ${(f.size / 2 ** 20).toFixed(1)} MiB: a picture is at most 5 MiB (save it smaller).`;
  return '';
}

/** Why a schema file is refused before it is read, or ''. */
export function schemaFileProblem(f: { name: string; size: number }): string {
  if (f.size > maxSchemaFile) return `${f.name} is ${(f.size / 2 ** 20).toFixed(1)} MiB: a schema is at most 1 MiB. Is it the right file?`;
  if (f.size === 0) return `${f.name} is empty.`;
  return '';
}

/** Starters typed one per line become a clean list (no blanks, trimmed). */
export function startersFromText(text: string): string[] {
  return text
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** What is wrong with the form, in words, or '' when it can be saved. */
export function formProblem(a: AssistantDraft): string {
  if (!a.name.trim()) return 'Give the assistant a name.';
  if (a.name.trim().length > 200) return 'The name is longer than 200 characters.';
  if (a.starters.length > 32) return 'At most 32 conversation starters.';
  return '';
}

/** A short relative time such as "3 min ago" for a timestamp. */
export function ago(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}

/** The letter shown for an assistant without a picture. */
export function initial(name: string): string {
  const c = [...name.trim()][0];
  return c ? c.toLocaleUpperCase() : '?';
}

/** One question of the editor's preview and what came of it. */
export type PreviewExchange = { question: string; answer: string; note: string };

/** What the preview shows of an answer: its text, and a note when code
 * was asked for (it does not run in the preview) or the answer stopped. */
export function previewWords(t: { answer: string; error?: string; note?: string; stopped: string; turns?: { cells?: unknown[] | null }[] }): { answer: string; note: string } {
  const cells = (t.turns ?? []).some((tu) => (tu.cells?.length ?? 0) > 0);
  const notes: string[] = [];
  if (cells) notes.push('The model wrote code: it does not run in the preview (Ask runs it in the sandbox).');
  if (t.error) notes.push(t.error);
  else if (!t.answer && t.note) notes.push(t.note);
  return { answer: t.answer, note: notes.join(' ') };
}

/** The preview's answer so far: the latest turn that has text. */
export function streamed(turns: string[]): string {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i].trim()) return turns[i];
  return '';
}
