// The one JSON writer of content trees (../content-tree.ts): a 200 body of named arrays,
// {"A":[…],"B":[…]}, written item by item into UTF-8 chunks: a 5,000-order answer is never one
// tree or one string (serializing it whole cost about three times the CPU: docs/benchmarks.md).
// The bytes are those of one JSON.stringify of the whole body.
import type { FastifyReply } from 'fastify';
import { AnswerChunks, answerChunks } from '../../http/answer-chunks.js';
import { sendAsRead } from '../../http/sent-as-read.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Items are written this many at a time, as one JSON.stringify of their array less its brackets
 * (the same text): one call per item cost about a third more CPU.
 */
const BATCH_ITEMS = 64;

/**
 * What becomes of an array without an item: left out (the 2.0.0 twins: their XSDs' XArray needs an
 * item) or written `[]` (the 1.0.0 twins' lists, `{"orders":[]}`).
 */
export type EmptyArrays = 'left out' | 'written';

/** One named array of a body, `"<name>":[items…]` (after `open`), written BATCH_ITEMS items at a time as they are added. */
class JsonArray {
  private started = false;
  private batch: unknown[] = [];

  constructor(
    private readonly out: AnswerChunks,
    private readonly open: string,
  ) {}

  add(item: unknown): void {
    this.batch.push(item);
    if (this.batch.length === BATCH_ITEMS) this.writeBatch();
  }

  /** Ends the array; whether it was written (one without an item is written only with `emptyArrays` 'written'). */
  end(emptyArrays: EmptyArrays): boolean {
    if (this.batch.length > 0) this.writeBatch();
    if (!this.started && emptyArrays === 'written') {
      this.out.add(this.open);
      this.started = true;
    }
    if (this.started) this.out.add(']');
    return this.started;
  }

  private writeBatch(): void {
    this.out.add((this.started ? ',' : this.open) + JSON.stringify(this.batch).slice(1, -1));
    this.started = true;
    this.batch = [];
  }
}

const arrayOpen = (name: string, written: boolean): string => `${written ? ',' : ''}${JSON.stringify(name)}:[`;

/** A body of named arrays, `{"A":[…],"B":[…]}`, its arrays written one after another. */
class JsonArrays {
  /** Whether an array was written (those after it are written after a comma). */
  private written = false;

  constructor(
    private readonly out: AnswerChunks,
    private readonly emptyArrays: EmptyArrays,
  ) {
    out.add('{');
  }

  /** The next array, its items added as they come: `ended` ends it. */
  next(name: string): JsonArray {
    return new JsonArray(this.out, arrayOpen(name, this.written));
  }

  ended(array: JsonArray): void {
    this.written = array.end(this.emptyArrays) || this.written;
  }

  /** The next array with these items. */
  whole(name: string, items: Iterable<unknown>): void {
    const array = this.next(name);
    for (const item of items) array.add(item);
    this.ended(array);
  }

  end(): void {
    this.out.add('}');
  }
}

/** Writes `{"<name>":[items…],…}` in the order given, each item a content tree or a value. */
export function writeJsonArrays(
  out: AnswerChunks,
  arrays: ReadonlyArray<readonly [name: string, items: Iterable<unknown>]>,
  emptyArrays: EmptyArrays = 'left out',
): void {
  const body = new JsonArrays(out, emptyArrays);
  for (const [name, items] of arrays) body.whole(name, items);
  body.end();
}

/**
 * Writes `{"<name>":[items…],…}` as the batches of its first array's items come, yielding after
 * each (see answerChunks), then the arrays `after` (known before the first batch): the bytes
 * writeJsonArrays writes of the same items.
 */
export async function* writeJsonArrayAsRead(
  out: AnswerChunks,
  name: string,
  batches: AsyncIterable<Iterable<unknown>>,
  emptyArrays: EmptyArrays = 'left out',
  after: ReadonlyArray<readonly [name: string, items: Iterable<unknown>]> = [],
): AsyncGenerator<void> {
  const body = new JsonArrays(out, emptyArrays);
  const array = body.next(name);
  for await (const batch of batches) {
    for (const item of batch) array.add(item);
    yield;
  }
  body.ended(array);
  for (const [afterName, items] of after) body.whole(afterName, items);
  body.end();
}

/** Sends the 200 body `write` writes, in UTF-8 chunks as it goes. */
export function sendJsonBody(reply: FastifyReply, write: (out: AnswerChunks) => void): FastifyReply {
  const out = new AnswerChunks();
  write(out);
  return reply.type(JSON_CONTENT_TYPE).send(out.bytes());
}

/** Sends the 200 body `write` writes as its parts are read (see sendAsRead). */
export function sendJsonAsRead(reply: FastifyReply, write: (out: AnswerChunks) => AsyncIterable<unknown>): FastifyReply {
  return sendAsRead(reply, JSON_CONTENT_TYPE, answerChunks(write));
}
