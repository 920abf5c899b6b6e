import { isDeepStrictEqual } from 'node:util';
import type { AnyBulkWriteOperation } from 'mongodb';
import type { OrderStatusDocument, ReadModelCollections } from '../read-model-store/documents.js';
import { settleInPages } from './pages.js';

const idsPerRead = 1_000;

export interface ChangeTimeReport {
  /** Documents whose change time is now the one the live version shows. */
  carried: number;
  /** Documents the live version does not show (yet, or not so): stamped at the switch. */
  stamped: number;
}

const withoutTime = ({ changedAt: _, ...state }: OrderStatusDocument) => state;

/**
 * Right after the switch, gives every rebuilt status the change time a poller can rely on:
 * - where the live version shows the same state, its change time (it was shown then: it must not
 *   look new after the switch); where it shows a later sequence (the rebuild behind on it, which
 *   the hand-over rules out), its time too, for an older state must never look new;
 * - where it shows an earlier state, none, or the same sequence folded differently (a replay of
 *   changed projection code), the database's time now, after the switch: a partner who polled
 *   the live version at any time before has not seen it.
 * Each update is guarded on the sequence read, so a write that moved the document on in between
 * wins (with a change time of its own).
 */
export async function settleChangeTimes(rebuilt: ReadModelCollections, live: ReadModelCollections): Promise<ChangeTimeReport> {
  const report: ChangeTimeReport = { carried: 0, stamped: 0 };
  const cursor = rebuilt.orderStatus.find({}, { sort: { _id: 1 } });
  const settle = async (page: OrderStatusDocument[]) => {
    const shown = new Map((await live.orderStatus.find({ _id: { $in: page.map((d) => d._id) } }).toArray()).map((d) => [d._id, d]));
    const ops: AnyBulkWriteOperation<OrderStatusDocument>[] = [];
    for (const doc of page) {
      const live = shown.get(doc._id);
      const filter = { _id: doc._id, sequence: doc.sequence };
      if (live && (live.sequence > doc.sequence || (live.sequence === doc.sequence && isDeepStrictEqual(withoutTime(live), withoutTime(doc))))) {
        report.carried++;
        if (live.changedAt.getTime() !== doc.changedAt.getTime()) ops.push({ updateOne: { filter, update: { $set: { changedAt: live.changedAt } } } });
      } else {
        report.stamped++;
        ops.push({ updateOne: { filter, update: { $currentDate: { changedAt: true } } } });
      }
    }
    if (ops.length > 0) await rebuilt.orderStatus.bulkWrite(ops, { ordered: false });
  };
  await settleInPages(cursor, idsPerRead, settle);
  return report;
}
