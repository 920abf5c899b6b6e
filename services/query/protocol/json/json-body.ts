// A 200 JSON body of named arrays, {"A":[…],"B":[…]}, written item by item into UTF-8 chunks: a
// 5,000-order answer is never one tree or one string (serializing it whole cost about three times
// the CPU: docs/benchmarks.md). The bytes are those of one JSON.stringify of the whole body with
// every empty array left out (the XSDs' XArray needs an item).
import type { AnswerChunks } from '../../http/answer-chunks.js';

/** Writes `{"<name>":[items…],…}`, each array only when it has an item, in the order given. */
export function writeJsonArrays(out: AnswerChunks, arrays: ReadonlyArray<readonly [name: string, items: Iterable<unknown>]>): void {
  out.add('{');
  let written = false;
  for (const [name, items] of arrays) {
    let started = false;
    for (const item of items) {
      out.add((started ? ',' : `${written ? ',' : ''}${JSON.stringify(name)}:[`) + JSON.stringify(item));
      started = true;
    }
    if (started) out.add(']');
    written ||= started;
  }
  out.add('}');
}
