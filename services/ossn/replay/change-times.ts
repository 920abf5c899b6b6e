import { isDeepStrictEqual } from 'node:util';
import type { OrderStatusDocument, ReadModelCollections } from '../../adapters/mongodb/documents.js';
import { settleGuarded, settleInPages, type PageSettlement, type SettleOptions } from './settling.js';

const idsPerRead = 1_000;

export interface ChangeTimeReport {
  /** Documents whose change time is now the one the live version shows. */
  carried: number;
  /** Documents the live version does not show (yet, or not so): stamped after the switch (or, before it, left for then). */
  stamped: number;
}

const withoutTime = ({ changedAt: _, ...state }: OrderStatusDocument) => state;

/**
 * Gives rebuilt statuses the change time a poller can rely on (see SettleOptions for the pass
 * before the switch, which only carries, and the one after it, which stamps too):
 * - where the live version shows the same state, its change time (it was shown then: it must not
 *   look new after the switch); where it shows a later sequence (the rebuild behind on it, which
 *   the hand-over rules out), its time too, for an older state must never look new;
 * - where it shows an earlier state, none, or the same sequence folded differently (a replay of
 *   changed projection code), the database's time now, after the switch: a partner who polled
 *   the live version at any time before has not seen it.
 * Each update is guarded on the sequence read; a page where a write moved a document on in
 * between is settled again (see settleGuarded).
 */
export async function settleChangeTimes(rebuilt: ReadModelCollections, live: ReadModelCollections, options: SettleOptions): Promise<ChangeTimeReport> {
  const report: ChangeTimeReport = { carried: 0, stamped: 0 };
  const ids =
    options.liveChangedSince === undefined
      ? rebuilt.orderStatus.find({}, { projection: { _id: 1 }, sort: { _id: 1 } })
      : live.orderStatus.find({ purchaseOrderNumber: { $exists: true }, changedAt: { $gte: options.liveChangedSince } }, { projection: { _id: 1 }, hint: 'by_change_time' });
  const settle = (page: Pick<OrderStatusDocument, '_id'>[]) =>
    settleGuarded(
      rebuilt.orderStatus,
      async () => {
        const filter = { _id: { $in: page.map((d) => d._id) } };
        const [docs, shown] = await Promise.all([rebuilt.orderStatus.find(filter).toArray(), live.orderStatus.find(filter).toArray()]);
        const shownById = new Map(shown.map((d) => [d._id, d]));
        const settlement: PageSettlement<OrderStatusDocument> = { ops: [], carried: 0, stamped: 0 };
        for (const doc of docs) {
          const live = shownById.get(doc._id);
          const filter = { _id: doc._id, sequence: doc.sequence };
          if (live && (live.sequence > doc.sequence || (live.sequence === doc.sequence && isDeepStrictEqual(withoutTime(live), withoutTime(doc))))) {
            settlement.carried++;
            if (live.changedAt.getTime() !== doc.changedAt.getTime()) settlement.ops.push({ updateOne: { filter, update: { $set: { changedAt: live.changedAt } } } });
          } else {
            settlement.stamped++;
            if (options.stamp) settlement.ops.push({ updateOne: { filter, update: { $currentDate: { changedAt: true } } } });
          }
        }
        return settlement;
      },
      report,
    );
  await settleInPages(ids, idsPerRead, settle);
  return report;
}
