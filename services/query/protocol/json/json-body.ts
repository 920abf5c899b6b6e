// The one JSON writer of content trees (../content-tree.ts): a 200 body of named arrays,
// {"A":[…],"B":[…]}, written item by item into UTF-8 chunks: a 5,000-order answer is never one
// tree or one string (serializing it whole cost about three times the CPU: docs/benchmarks.md).
// The bytes are those of one JSON.stringify of the whole body.
import type { FastifyReply } from 'fastify';
import { AnswerChunks } from '../../http/answer-chunks.js';

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

/** Writes `{"<name>":[items…],…}` in the order given, each item a content tree or a value. */
export function writeJsonArrays(
  out: AnswerChunks,
  arrays: ReadonlyArray<readonly [name: string, items: Iterable<unknown>]>,
  emptyArrays: EmptyArrays = 'left out',
): void {
  out.add('{');
  let written = false;
  for (const [name, items] of arrays) {
    const open = `${written ? ',' : ''}${JSON.stringify(name)}:[`;
    let started = false;
    let batch: unknown[] = [];
    const writeBatch = () => {
      out.add((started ? ',' : open) + JSON.stringify(batch).slice(1, -1));
      started = true;
      batch = [];
    };
    for (const item of items) {
      batch.push(item);
      if (batch.length === BATCH_ITEMS) writeBatch();
    }
    if (batch.length > 0) writeBatch();
    if (!started && emptyArrays === 'written') {
      out.add(open);
      started = true;
    }
    if (started) out.add(']');
    written ||= started;
  }
  out.add('}');
}

/** Sends the 200 body `write` writes, in UTF-8 chunks as it goes. */
export function sendJsonBody(reply: FastifyReply, write: (out: AnswerChunks) => void): FastifyReply {
  const out = new AnswerChunks();
  write(out);
  return reply.type(JSON_CONTENT_TYPE).send(out.bytes());
}
