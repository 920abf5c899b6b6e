// Large answers (SOAP and JSON) are written piece by piece and encoded to UTF-8 in chunks as they
// go: a 30 MiB answer is never built as one string, whose many small pieces V8 keeps and joins
// only at the end, at two to three times the CPU time (measured against the version that built
// one string; the figures are in docs/benchmarks.md).

/** About this many characters of an answer are encoded at a time. */
const CHUNK_CHARS = 64 * 1024;

export class AnswerChunks {
  private readonly chunks: Buffer[] = [];
  private pending = '';

  add(text: string): void {
    this.pending += text;
    if (this.pending.length >= CHUNK_CHARS) this.flush();
  }

  /** The chunks filled so far (all of them, the last one too, with `last`), taken out: an answer sent as it is written (answerChunks). */
  take(last = false): Buffer[] {
    if (last) this.flush();
    return this.chunks.splice(0);
  }

  /** Everything written, as one buffer. */
  bytes(): Buffer {
    this.flush();
    return this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
  }

  private flush(): void {
    if (this.pending === '') return;
    this.chunks.push(Buffer.from(this.pending, 'utf8'));
    this.pending = '';
  }
}

/**
 * The bytes `write` writes, a chunk at a time as each fills: `write` yields between the parts it
 * writes (a batch of an answer read in batches) and is resumed only as the chunks are taken, so
 * an answer sent as it is read holds no more than a part and a chunk here whatever its size.
 */
export async function* answerChunks(write: (out: AnswerChunks) => AsyncIterable<unknown>): AsyncGenerator<Buffer> {
  const out = new AnswerChunks();
  for await (const _part of write(out)) yield* out.take();
  yield* out.take(true);
}
