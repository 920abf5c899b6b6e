import type { Document } from 'mongodb';
import type { OrderStatusDocument, ReadModelCollections } from './documents.js';
import { settledStatusTimes } from '../../../projections/polling/change-times.js';
import { hasIndex, settleAgainstLive, type LiveChangeTime, type PageSettlement, type SettleOptions } from './settling.js';

export interface ChangeTimeReport {
  /** Documents whose change times are now the ones the live version shows. */
  carried: number;
  /** Documents the live version does not show (yet, or not so): stamped after the switch (or, before it, left for then). */
  stamped: number;
}

function settleDocument(doc: OrderStatusDocument, live: OrderStatusDocument | undefined, settlement: PageSettlement<OrderStatusDocument>, options: SettleOptions): void {
  const times = settledStatusTimes(doc, live);
  const set: Document = {};
  const stamp: Record<string, true> = {};
  for (const field of ['changedAt', 'updatedAt'] as const) {
    const source = times[field];
    if (source.from === 'now') stamp[field] = true;
    else if (source.from === 'value' && source.at.getTime() !== doc[field]?.getTime()) set[field] = source.at;
  }
  const stamps = Object.keys(stamp).length > 0;
  if (stamps) settlement.stamped++;
  else settlement.carried++;
  const update: Document = {};
  if (Object.keys(set).length > 0) update.$set = set;
  if (stamps && options.stamp) update.$currentDate = stamp;
  if (Object.keys(update).length > 0) settlement.ops.push({ updateOne: { filter: { _id: doc._id, sequence: doc.sequence }, update } });
}

/**
 * Where to find what the live version changed since a time: a version 2.0.0 made stamps `updatedAt`
 * in every write (`changedAt` in some of them), so its `by_update_time` index finds each such
 * document once; a version made before 2.0.0 has no `updatedAt` (nor its index), and stamped
 * `changedAt` in every write.
 */
async function liveChangeTime(live: ReadModelCollections): Promise<LiveChangeTime> {
  return (await hasIndex(live.orderStatus, 'by_update_time')) ? { field: 'updatedAt', index: 'by_update_time' } : { field: 'changedAt', index: 'by_change_time' };
}

/**
 * Gives rebuilt statuses the change times a poller can rely on (see SettleOptions for the pass
 * before the switch, which only carries, and the one after it, which stamps too), 1.0.0's
 * `changedAt` and 2.0.0's `updatedAt` each by its own rule (oss-osn-2.0.0.md §6):
 * - where the live version shows the same (the same status for `changedAt`, the same state for
 *   `updatedAt`), its time (it was shown then: it must not look new after the switch); where it
 *   shows later (the rebuild behind on it, which the hand-over rules out), its time too, for an
 *   older state must never look new;
 * - where it shows an earlier state, none, or the same sequence folded differently (a replay of
 *   changed projection code), the database's time now, after the switch: a partner who polled
 *   the live version at any time before has not seen it.
 * Each update is guarded on the sequence read; a page where a write moved a document on in
 * between is settled again (see settleGuarded).
 */
export async function settleChangeTimes(rebuilt: ReadModelCollections, live: ReadModelCollections, options: SettleOptions): Promise<ChangeTimeReport> {
  const settle = (doc: OrderStatusDocument, shown: OrderStatusDocument | undefined, settlement: PageSettlement<OrderStatusDocument>) => settleDocument(doc, shown, settlement, options);
  // Without a time every rebuilt document is settled, whichever field is named.
  const changeTime = options.liveChangedSince === undefined ? { field: 'changedAt', index: 'by_change_time' } : await liveChangeTime(live);
  return settleAgainstLive(rebuilt.orderStatus, live.orderStatus, changeTime, options, settle);
}
