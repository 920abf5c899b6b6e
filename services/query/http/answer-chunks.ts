// Large answers (SOAP and JSON) are written piece by piece and encoded to UTF-8 in chunks as they
// go: a 30 MiB answer is never built as one string, whose many small pieces V8 keeps and joins
// only at the end, at two to three times the CPU time (bench/soap-builders.ts for SOAP; the JSON
// routes likewise).

/** About this many characters of an answer are encoded at a time. */
const CHUNK_CHARS = 64 * 1024;

export class AnswerChunks {
  private readonly chunks: Buffer[] = [];
  private pending = '';

  add(text: string): void {
    this.pending += text;
    if (this.pending.length >= CHUNK_CHARS) this.flush();
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
