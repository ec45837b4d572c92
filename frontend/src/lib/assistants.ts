export type Capability =
  | 'web_browsing'
  | 'image_generation'
  | 'code_interpreter'
  | 'canvas'
  | 'memory'
  | 'voice'
  | 'vision'
  | 'file_uploads'
  | 'knowledge';

export interface KnowledgeFile {
  name: string;
  size: number;
  sha256: string;
  path: string;
}

/** A file the assistant uses that is still on OpenAI's servers. */
export interface RemoteFile {
  tool: Capability;
  kind: 'file' | 'vector_store';
  id: string;
}

export interface Action {
  schema: string;
  auth: string;
  privacy_url: string;
}

export interface Assistant {
  schema?: number;
  id: string;
  name: string;
  description: string;
  instructions: string;
  starters: string[];
  knowledge: KnowledgeFile[];
  capabilities: Capability[];
  actions: Action[];
  remote_files?: RemoteFile[];
  notes: string;
  created?: string;
  updated?: string;
}

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

export function emptyAssistant(): Assistant {
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
export function formProblem(a: Assistant): string {
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
