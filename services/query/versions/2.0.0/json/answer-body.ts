// The 200 bodies of the JSON v2 twins, {"XArray":[…],"ServiceMessageArray":[…]}, written item by
// item into UTF-8 chunks: a 5,000-order answer is never one tree or one string (serializing it
// whole cost about three times the CPU: ../../1.0.0/json/answer-body.ts). The bytes are those of one
// JSON.stringify of the whole body: an empty array is left out (the XSDs' XArray needs an item),
// as are no messages.
import type { AnswerChunks } from '../../../http/answer-chunks.js';
import type { ServiceMessage } from '../service-messages.js';

/** Writes `{"<arrayName>":[items…],"ServiceMessageArray":[messages…]}`, each part only when it has an item. */
export function writeJsonAnswer(out: AnswerChunks, arrayName: string, items: Iterable<unknown>, list: readonly ServiceMessage[]): void {
  out.add('{');
  let started = false;
  for (const item of items) {
    out.add((started ? ',' : `${JSON.stringify(arrayName)}:[`) + JSON.stringify(item));
    started = true;
  }
  if (started) out.add(']');
  if (list.length > 0) out.add(`${started ? ',' : ''}"ServiceMessageArray":${JSON.stringify(list)}`);
  out.add('}');
}
