// The 200 bodies of the JSON v2 twins, {"XArray":[…],"ServiceMessageArray":[…]}, written by the
// one JSON writer of content trees (../../../protocol/json/json-body.ts): an empty array is left
// out, as are no messages.
import type { AnswerChunks } from '../../../http/answer-chunks.js';
import { writeJsonArrayAsRead, writeJsonArrays } from '../../../protocol/json/json-body.js';
import type { ServiceMessage } from '../../../v2-core/service-messages.js';

/** Writes `{"<arrayName>":[items…],"ServiceMessageArray":[messages…]}`, each part only when it has an item. */
export function writeJsonAnswer(out: AnswerChunks, arrayName: string, items: Iterable<unknown>, list: readonly ServiceMessage[]): void {
  writeJsonArrays(out, [
    [arrayName, items],
    ['ServiceMessageArray', list],
  ]);
}

/** writeJsonAnswer's bytes written as the batches of the items come, yielding after each (sent as it is read: docs/partners.md, "Large answers"). */
export function writeJsonAnswerAsRead(out: AnswerChunks, arrayName: string, batches: AsyncIterable<Iterable<unknown>>, list: readonly ServiceMessage[]): AsyncIterable<void> {
  return writeJsonArrayAsRead(out, arrayName, batches, 'left out', [['ServiceMessageArray', list]]);
}
