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
  };
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
