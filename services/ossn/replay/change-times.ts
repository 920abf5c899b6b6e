import { isDeepStrictEqual } from 'node:util';
import type { OrderStatusDocument, ReadModelCollections } from '../../adapters/mongodb/documents.js';
import { settleAgainstLive, type SettleOptions } from './settling.js';

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
  return settleAgainstLive(rebuilt.orderStatus, live.orderStatus, { field: 'changedAt', index: 'by_change_time' }, options, (doc, live, settlement) => {
    const filter = { _id: doc._id, sequence: doc.sequence };
    if (live && (live.sequence > doc.sequence || (live.sequence === doc.sequence && isDeepStrictEqual(withoutTime(live), withoutTime(doc))))) {
      settlement.carried++;
      if (live.changedAt.getTime() !== doc.changedAt.getTime()) settlement.ops.push({ updateOne: { filter, update: { $set: { changedAt: live.changedAt } } } });
    } else {
      settlement.stamped++;
      if (options.stamp) settlement.ops.push({ updateOne: { filter, update: { $currentDate: { changedAt: true } } } });
    }
  });
}
