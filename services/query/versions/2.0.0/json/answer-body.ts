// The 200 bodies of the JSON v2 twins, {"XArray":[…],"ServiceMessageArray":[…]}, written by the
// one JSON writer of content trees (../../../protocol/json/json-body.ts): an empty array is left
// out, as are no messages.
import type { AnswerChunks } from '../../../http/answer-chunks.js';
import { writeJsonArrays } from '../../../protocol/json/json-body.js';
import type { ServiceMessage } from '../service-messages.js';

/** Writes `{"<arrayName>":[items…],"ServiceMessageArray":[messages…]}`, each part only when it has an item. */
export function writeJsonAnswer(out: AnswerChunks, arrayName: string, items: Iterable<unknown>, list: readonly ServiceMessage[]): void {
  writeJsonArrays(out, [
    [arrayName, items],
    ['ServiceMessageArray', list],
  ]);
}
