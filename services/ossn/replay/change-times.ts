import { isDeepStrictEqual } from 'node:util';
import { MongoServerError, type Collection, type Document } from 'mongodb';
import { orderStatusStoreFields, type OrderStatusDocument, type ReadModelCollections } from '../../adapters/mongodb/documents.js';
import { picked, v1StatusFields } from '../../adapters/mongodb/v1-fields.js';
import { statusSequenceOf } from '../../../projections/state.js';
import { settleAgainstLive, type LiveChangeTime, type PageSettlement, type SettleOptions } from './settling.js';

export interface ChangeTimeReport {
  /** Documents whose change times are now the ones the live version shows. */
  carried: number;
  /** Documents the live version does not show (yet, or not so): stamped after the switch (or, before it, left for then). */
  stamped: number;
}

/** The document without the store's own fields (orderStatusStoreFields): the state it shows. */
const withoutTimes = (doc: OrderStatusDocument): Document => {
  const state: Document = { ...doc };
  for (const field of Object.keys(orderStatusStoreFields)) delete state[field];
  return state;
};
/** What 1.0.0 answers of a sales order. */
const v1Shown = (doc: OrderStatusDocument) => picked(doc, ['clientId', 'salesOrderNumber', 'open', ...v1StatusFields]);

/**
 * Whether the live version shows what 1.0.0 answers of the rebuilt document, or a later status:
 * keyed on the status sequence (`sequence` on documents written before 2.0.0), which events of
 * contract v2 types do not move, so that a rebuild with them shows 1.0.0 pollers nothing new.
 */
function showsStatus(live: OrderStatusDocument, doc: OrderStatusDocument): boolean {
  const [shown, rebuilt] = [statusSequenceOf(live), statusSequenceOf(doc)];
  if (shown === undefined || rebuilt === undefined || live.changedAt === undefined) return false;
  return shown > rebuilt || (shown === rebuilt && isDeepStrictEqual(v1Shown(live), v1Shown(doc)));
}

/**
 * Whether the live version shows the rebuilt document as 2.0.0 answers it, or a later state: keyed
 * on the sequence. A document written before 2.0.0 (no `updatedAt`) showed 1.0.0's fields alone.
 */
function showsState(live: OrderStatusDocument, doc: OrderStatusDocument): boolean {
  if (live.sequence !== doc.sequence) return live.sequence > doc.sequence;
  return live.updatedAt === undefined ? isDeepStrictEqual(v1Shown(live), v1Shown(doc)) : isDeepStrictEqual(withoutTimes(live), withoutTimes(doc));
}

function settleDocument(doc: OrderStatusDocument, live: OrderStatusDocument | undefined, settlement: PageSettlement<OrderStatusDocument>, options: SettleOptions): void {
  const set: Document = {};
  const stamp: Record<string, true> = {};
  if (statusSequenceOf(doc) !== undefined) {
    if (live && showsStatus(live, doc)) {
      if (live.changedAt!.getTime() !== doc.changedAt?.getTime()) set.changedAt = live.changedAt;
    } else stamp.changedAt = true;
  }
  const liveUpdatedAt = live?.updatedAt ?? live?.changedAt;
  if (live && liveUpdatedAt && showsState(live, doc)) {
    if (liveUpdatedAt.getTime() !== doc.updatedAt?.getTime()) set.updatedAt = liveUpdatedAt;
  } else stamp.updatedAt = true;

  const stamps = Object.keys(stamp).length > 0;
  if (stamps) settlement.stamped++;
  else settlement.carried++;
  const update: Document = {};
  if (Object.keys(set).length > 0) update.$set = set;
  if (stamps && options.stamp) update.$currentDate = stamp;
  if (Object.keys(update).length > 0) settlement.ops.push({ updateOne: { filter: { _id: doc._id, sequence: doc.sequence }, update } });
}

/** NamespaceNotFound: the collection does not exist, so it has no index. */
const namespaceNotFound = 26;

async function hasIndex(collection: Collection<OrderStatusDocument>, name: string): Promise<boolean> {
  try {
    return (await collection.indexes()).some((index) => index.name === name);
  } catch (error) {
    if (error instanceof MongoServerError && error.code === namespaceNotFound) return false;
    throw error;
  }
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
