// The words of the assistant editor's Knowledge section: each file's
// state, a step of an add, and how the files are searched.

import type { core, knowledge } from './gen/api.gen';

/** A file's state in words: "indexed: 12 pages, 30 chunks" or why not. */
export function fileState(f: knowledge.File): string {
  if (f.state !== 'indexed') return f.reason ? `not indexed: ${f.reason}` : 'not indexed';
  const parts: string[] = [];
  if (f.pages) parts.push(`${f.pages} ${f.format === 'pptx' ? (f.pages === 1 ? 'slide' : 'slides') : f.pages === 1 ? 'page' : 'pages'}`);
  parts.push(`${f.chunks} ${f.chunks === 1 ? 'chunk' : 'chunks'}`);
  return `indexed: ${parts.join(', ')}`;
}

const sandboxRead = /\.(pdf|docx?|pptx?|xlsx?|odt|odp|ods|rtf)$/i;

const stages: Record<string, string> = {
  uploading: 'sending',
  copying: 'copying',
  reading: 'reading',
  indexing: 'indexing',
  done: 'done',
};

/** A step of an add in words: "2 of 3: reading manual.pdf…". */
export function stepWords(p: { index: number; total: number; file: string; stage: string }): string {
  let what = stages[p.stage] ?? p.stage;
  // PDF and Office files are read in the sandbox; say so for those alone.
  if (p.stage === 'reading' && sandboxRead.test(p.file)) what = 'reading (in the sandbox)';
  const tail = p.stage === 'done' ? '' : '…';
  return `${p.index} of ${p.total}: ${what} ${p.file}${tail}`;
}

/** How the files are searched, in words. */
export function rankingWords(r: core.KnowledgeRanking | null, files: number): string {
  if (!files) return 'No files yet.';
  if (!r || r.mode !== 'hybrid') return 'Searched by keywords alone (BM25): no embedding model made vectors for these files.';
  return `Searched by keywords (BM25) and meaning: embeddings by ${r.model} (${r.dims} numbers each, ${r.vectors} passages), fused by reciprocal rank.`;
}
