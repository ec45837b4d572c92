import { describe, expect, it } from 'vitest';
import { imageReaders, isImage, readsImages } from './vision';

const servers = [
  { base_url: 'http://127.0.0.1:11434/v1', name: 'Ollama', models: [{ id: 'qwen2.5vl:7b', vision: true }, { id: 'qwen2.5:7b' }] },
  { base_url: 'http://127.0.0.1:8080/v1', name: 'llama-server', models: [{ id: 'tiny' }] },
] as never;

describe('images in a question', () => {
  it('knows the image files', () => {
    expect(isImage('chart.PNG')).toBe(true);
    expect(isImage('photo.jpeg')).toBe(true);
    expect(isImage('sales.csv')).toBe(false);
    expect(isImage('png')).toBe(false);
  });
  it('reads the server\'s word on who reads images', () => {
    expect(readsImages(servers, 'http://127.0.0.1:11434/v1|qwen2.5vl:7b')).toBe(true);
    expect(readsImages(servers, 'http://127.0.0.1:11434/v1|qwen2.5:7b')).toBe(false);
    expect(readsImages(servers, '')).toBe(false);
    expect(imageReaders(servers)).toEqual(['qwen2.5vl:7b · Ollama']);
  });
});
