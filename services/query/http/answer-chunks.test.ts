import { describe, expect, it } from 'vitest';
import { AnswerChunks } from './answer-chunks.js';

describe('AnswerChunks', () => {
  it('gives the UTF-8 bytes of everything written, across many chunks and characters of every width', () => {
    const pieces = Array.from({ length: 30_000 }, (_, i) => `<n>${i} é € 😀</n>`);
    const chunks = new AnswerChunks();
    for (const piece of pieces) chunks.add(piece);
    const bytes = chunks.bytes();
    expect(bytes.equals(Buffer.from(pieces.join(''), 'utf8'))).toBe(true);
    expect(bytes.length).toBeGreaterThan(4 * 64 * 1024);
  });

  it('gives nothing when nothing was written', () => {
    expect(new AnswerChunks().bytes().length).toBe(0);
  });
});
