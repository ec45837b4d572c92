import { describe, expect, it } from 'vitest';
import { fileState, rankingWords, stepWords } from './knowledge';
import type { knowledge } from './gen/api.gen';

const file = (f: Partial<knowledge.File>): knowledge.File => ({
  name: 'manual.pdf', sha256: 'ab', size: 1, format: 'pdf', state: 'indexed', chunks: 3, tokens: 900, path: '/p', added: '', ...f,
});

describe('knowledge words', () => {
  it('says a file indexed with its pages and chunks, or why not', () => {
    expect(fileState(file({ pages: 12, chunks: 30 }))).toBe('indexed: 12 pages, 30 chunks');
    expect(fileState(file({ format: 'pptx', pages: 1, chunks: 1 }))).toBe('indexed: 1 slide, 1 chunk');
    expect(fileState(file({ format: 'markdown', chunks: 2 }))).toBe('indexed: 2 chunks');
    expect(fileState(file({ state: 'failed', reason: 'not a PDF although named .pdf', chunks: 0 }))).toBe('not indexed: not a PDF although named .pdf');
  });
  it('says each step of an add', () => {
    expect(stepWords({ index: 2, total: 3, file: 'manual.pdf', stage: 'reading' })).toBe('2 of 3: reading (in the sandbox) manual.pdf…');
    expect(stepWords({ index: 1, total: 3, file: 'statistics.html', stage: 'reading' })).toBe('1 of 3: reading statistics.html…');
    expect(stepWords({ index: 3, total: 3, file: 'x.md', stage: 'done' })).toBe('3 of 3: done x.md');
  });
  it('says whether embeddings rank too, and with which model', () => {
    expect(rankingWords(null, 0)).toBe('No files yet.');
    expect(rankingWords({ mode: 'keywords', words: '' }, 2)).toMatch(/keywords alone \(BM25\)/);
    expect(rankingWords({ mode: 'hybrid', model: 'nomic-embed-text', dims: 768, vectors: 40, words: '' }, 2)).toBe(
      'Searched by keywords (BM25) and meaning: embeddings by nomic-embed-text (768 numbers each, 40 passages), fused by reciprocal rank.',
    );
  });
});
