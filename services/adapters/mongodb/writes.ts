import { MongoBulkWriteError, type AnyBulkWriteOperation, type BulkWriteResult, type Collection, type Document, type Filter, type UpdateFilter } from 'mongodb';
import { statusSequenceOf, type OrderStatusState, type ShipmentsState } from '../../../projections/state.js';
import {
  documentId,
  issueFieldsOf,
  orderStatusStateProjection,
  shipmentsStateProjection,
  type OrderStatusDocument,
  type ReadModelCollections,
  type ShipmentsDocument,
} from './documents.js';
import { writeErrorsOf } from './store-refusals.js';
import { guardedUpdatePipeline, insertPipeline, plainInsert, plainUpdate, updatePipeline } from './shipments-update.js';
import { carriedOver, statusWriteTimes, visibleTimes, type ShownChangeTimes } from '../../../projections/polling/change-times.js';
import { ErrorCodes, OssnError } from '../../../contracts/errors/ossn-error.js';
import { noMarks } from '../../../projections/resume-marks.js';
import { requireAdvancing, type BatchEffects, type LoadedStates, type StateChange } from '../../../projections/batch.js';


/** Another writer changed a document between our read and our write; reload and fold again. */
export class WriteConflictError extends OssnError {
  override readonly name = 'WriteConflictError';
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCodes.WRITE_CONFLICT, message, options);
  }
}

/** Ids per read: a batch's sales orders in a few point-read queries of bounded size. */
const idsPerLoad = 1_000;

// The state projections, keeping the resume mark, which loadStates takes off the state.
const { resume: _statusMark, ...orderStatusLoadProjection } = orderStatusStateProjection;
const { resume: _shipmentsMark, ...shipmentsLoadProjection } = shipmentsStateProjection;

export async function loadStates(collections: ReadModelCollections, keys: string[]): Promise<LoadedStates> {
  const loaded = { orderStatus: new Map(), shipments: new Map(), marks: noMarks() } satisfies LoadedStates;
  for (let start = 0; start < keys.length; start += idsPerLoad) {
    const filter = { _id: { $in: keys.slice(start, start + idsPerLoad) } };
    const [statuses, shipments] = await Promise.all([
      collections.orderStatus.find(filter, { projection: orderStatusLoadProjection }).toArray(),
      collections.shipments.find(filter, { projection: shipmentsLoadProjection }).toArray(),
    ]);
    for (const { resume, ...state } of statuses) {
      const key = documentId(state.clientId, state.salesOrderNumber);
      loaded.orderStatus.set(key, state as OrderStatusState);
      if (resume) loaded.marks.orderStatus.set(key, resume);
    }
    for (const { resume, ...state } of shipments) {
      const key = documentId(state.clientId, state.salesOrderNumber);
      loaded.shipments.set(key, state as ShipmentsState);
      if (resume) loaded.marks.shipments.set(key, resume);
    }
  }
  return loaded;
}

/**
 * The sequence guard. An existing document is updated only while it still holds the sequence we
 * read: its filter names the _id alone (the server's cheapest point write: a filter naming more
 * than the _id goes through the query planner: about an eighth of mongod's CPU per write here, see
 * docs/benchmarks.md) and every change is an update pipeline's `$cond` on the stored sequence,
 * which leaves the document as it is where the guard does not hold. A change always advances the
 * sequence (the projections apply only events above it), so an update whose guard held modifies
 * its document and one that missed modifies nothing: the bulk write's modified count tells.
 * A new one is inserted only while none exists: the filter names the _id alone and every field
 * sits in $setOnInsert, so when another writer got there first nothing of ours is applied (at
 * most the change time moves on, which shows a poller the order once more). A guard that missed
 * means the whole batch is retried from a read of the store, so an event at or below the stored
 * sequence never changes anything.
 */
interface GuardedWrite<T extends Document> {
  op: AnyBulkWriteOperation<T>;
  /** An insert reports an upsert when it took effect; a guarded update a modification (or a match, guarded in its filter). */
  inserts: boolean;
}

/**
 * Where the sequence guard of an update sits: in the update ('update', the projector's), or in
 * the filter ('filter', as before 2026-12; 'filter-hinted' with an _id index hint). bench/guard-writes.ts compares them.
 */
export type GuardPlacement = 'update' | 'filter' | 'filter-hinted';

/** The guard as an expression on the stored document, for the `$cond`s of an update pipeline. */
const holdsSequence = (sequence: number): Document => ({ $eq: ['$sequence', { $literal: sequence }] });

/**
 * A guarded pipeline's `$set` value: `value` where the guard holds, the stored field otherwise (a
 * missing one stays missing). '$$REMOVE' removes the field.
 */
const guarded = (guard: Document, field: string, value: unknown): Document => ({ $cond: [guard, value, `$${field}`] });

function guardFilter(key: string, sequence: number, placement: GuardPlacement): { filter: Document; hint?: Document } {
  if (placement === 'update') return { filter: { _id: key } };
  return { filter: { _id: key, sequence }, ...(placement === 'filter-hinted' ? { hint: { _id: 1 } } : {}) };
}

/**
 * The guard holds the stored document to the state we read, so only what differs from it is
 * sent: the projections share unchanged parts between states, so a field whose value is the very
 * same object is unchanged. Less to encode, send and apply than the whole document.
 */
function differences(before: object, set: Document): { changed: Document; removed: string[] } {
  const previous = before as Document;
  const changed: Document = {};
  for (const field in set) if (set[field] !== undefined && set[field] !== previous[field]) changed[field] = set[field];
  // Whatever `before` holds that the new state lacks, whichever field it is: none lingers.
  const removed: string[] = [];
  for (const field in previous) if (previous[field] !== undefined && set[field] === undefined) removed.push(field);
  return { changed, removed };
}

function guardedWrite<T extends { _id: string; sequence: number }>(
  key: string,
  change: StateChange<{ sequence: number }>,
  set: Document,
  stamp: { $currentDate?: Record<string, true> },
  placement: GuardPlacement,
): GuardedWrite<T> {
  const { before } = change;
  if (!before) {
    const update = { $setOnInsert: set, ...stamp } as UpdateFilter<T>;
    return { op: { updateOne: { filter: { _id: key } as Filter<T>, update, upsert: true } }, inserts: true };
  }
  const { changed, removed } = differences(before, set);
  const { filter, hint } = guardFilter(key, before.sequence, placement);
  if (placement === 'update') {
    const guard = holdsSequence(before.sequence);
    const fields: Document = {};
    for (const field in changed) fields[field] = guarded(guard, field, { $literal: changed[field] });
    for (const field of removed) fields[field] = guarded(guard, field, '$$REMOVE');
    // The server's clock, one time for the whole write, as $currentDate stamps it.
    for (const field in stamp.$currentDate) fields[field] = guarded(guard, field, '$$NOW');
    return { op: { updateOne: { filter: filter as Filter<T>, update: [{ $set: fields }] } }, inserts: false };
  }
  const update: Document = { ...stamp };
  if (Object.keys(changed).length > 0) update.$set = changed;
  if (removed.length > 0) update.$unset = Object.fromEntries(removed.map((field) => [field, '']));
  return { op: { updateOne: { filter: filter as Filter<T>, update: update as UpdateFilter<T>, ...(hint ? { hint } : {}) } }, inserts: false };
}

/**
 * The same guard for a shipments document, whose visible times only a pipeline update can stamp;
 * a write that stamps none and leaves them as they are is said in plain operators where the guard
 * sits in the filter (see shipments-update.ts), and in a pipeline that keeps the news time as it is
 * where the guard sits in the update.
 */
function guardedShipmentsWrite(
  key: string,
  change: StateChange<ShipmentsState>,
  shown: ShipmentsDocument | undefined,
  placement: GuardPlacement,
): GuardedWrite<ShipmentsDocument> {
  const { before, after } = change;
  const times = carriedOver(visibleTimes(before, after), after, shown, !before);
  // The mark is written with the state, as one more top-level field (never read back as state).
  const written: ShipmentsState = change.mark ? ({ ...after, resume: change.mark } as ShipmentsState) : after;
  if (!before) {
    const update = plainInsert(written, times) ?? insertPipeline(key, written, times);
    return { op: { updateOne: { filter: { _id: key }, update, upsert: true } }, inserts: true };
  }
  const { changed, removed } = differences(before, written);
  const plain = plainUpdate(before, written, changed, removed, times);
  const { filter, hint } = guardFilter(key, before.sequence, placement);
  if (placement === 'update') {
    const update = guardedUpdatePipeline(before.sequence, changed, removed, written, times, before, plain !== undefined);
    return { op: { updateOne: { filter, update } }, inserts: false };
  }
  const update = plain ?? updatePipeline(changed, removed, written, times, before);
  return { op: { updateOne: { filter, update, ...(hint ? { hint } : {}) } }, inserts: false };
}

/**
 * One unordered bulk write of a collection's part of a batch: the server applies the updates in
 * any order (each touches another document) and reports every one. Whatever a failed batch wrote
 * is guarded like the rest: the retry reloads the states and folds only what is newer.
 */
async function runGuarded<T extends Document>(collection: Collection<T>, writes: GuardedWrite<T>[], placement: GuardPlacement): Promise<void> {
  if (writes.length === 0) return;
  let result: BulkWriteResult;
  try {
    result = await collection.bulkWrite(
      writes.map((w) => w.op),
      { ordered: false },
    );
  } catch (error) {
    // Two inserts of one new document raced (another writer's upsert won): a conflict, not a refusal.
    if (error instanceof MongoBulkWriteError && writeErrorsOf(error).some((e) => e.code === 11000)) {
      throw new WriteConflictError(`${collection.collectionName}: a document changed under the projector`, { cause: error });
    }
    throw error;
  }
  const expectedInserts = writes.filter((w) => w.inserts).length;
  // An insert that found its document counts as matched, not upserted.
  const insertsMissed = expectedInserts - result.upsertedCount;
  // An update guarded in the update that missed matched its document and modified nothing; an
  // upsert's insert is not counted as modified (and one that found its document missed already).
  const updatesTaken = placement === 'update' ? result.modifiedCount : result.matchedCount - insertsMissed;
  const updatesMissed = writes.length - expectedInserts - updatesTaken;
  if (insertsMissed > 0 || updatesMissed > 0) {
    throw new WriteConflictError(
      `${collection.collectionName}: ${insertsMissed} new documents existed already, ${updatesMissed} guarded updates missed`,
    );
  }
}

/**
 * Writes a batch's effects. With `previous` (the live version while a rebuild fills a new one),
 * a status whose sequence the previous version already showed keeps that version's change time,
 * and a package or complete flag it shows as it is keeps that version's visible time.
 */
export async function writeEffects(
  collections: ReadModelCollections,
  effects: BatchEffects,
  previous?: ReadModelCollections,
  placement: GuardPlacement = 'update',
): Promise<void> {
  // The projector's fold refuses such a change already (its event is dead-lettered); any other
  // caller's is refused here, before a write that would read as a missed guard is sent.
  if (placement === 'update') requireAdvancing(effects);
  const [carried, shownShipments] = previous
    ? await Promise.all([changeTimesOf(previous, effects.orderStatus), shipmentsShownBy(previous, effects.shipments)])
    : [new Map<string, ShownChangeTimes>(), new Map<string, ShipmentsDocument>()];

  const statusOps = effects.orderStatus.map((change) => {
    const key = documentId(change.after.clientId, change.after.salesOrderNumber);
    const { set, stamp } = changeTimes(change, carried.get(key));
    // The issue fields follow the issues: the projections keep the very same array while they are unchanged.
    const issues = !change.before || change.before.issues !== change.after.issues ? issueFieldsOf(change.after) : {};
    const mark = change.mark ? { resume: change.mark } : {};
    return guardedWrite<OrderStatusDocument>(key, change, { ...change.after, ...issues, ...set, ...mark }, stamp, placement);
  });

  const shipmentOps = effects.shipments.map((change) => {
    const key = documentId(change.after.clientId, change.after.salesOrderNumber);
    return guardedShipmentsWrite(key, change, shownShipments.get(key), placement);
  });

  await Promise.all([runGuarded(collections.orderStatus, statusOps, placement), runGuarded(collections.shipments, shipmentOps, placement)]);
}

/**
 * The change times of a status write, as the policy gives them (statusWriteTimes), in update
 * operators: the server's clock ($currentDate) for 'now', a carried value as it is.
 */
function changeTimes(change: StateChange<OrderStatusState>, shown: ShownChangeTimes | undefined): { set: Document; stamp: { $currentDate?: Record<string, true> } } {
  const times = statusWriteTimes(change.before, change.after, shown);
  const set: Document = {};
  const stamped: Record<string, true> = {};
  for (const field of ['changedAt', 'updatedAt'] as const) {
    const source = times[field];
    if (source.from === 'now') stamped[field] = true;
    else if (source.from === 'value') set[field] = source.at;
  }
  return { set, stamp: Object.keys(stamped).length > 0 ? { $currentDate: stamped } : {} };
}

async function changeTimesOf(previous: ReadModelCollections, changes: StateChange<OrderStatusState>[]): Promise<Map<string, ShownChangeTimes>> {
  const keys = changes.map((c) => documentId(c.after.clientId, c.after.salesOrderNumber));
  const docs = await previous.orderStatus
    .find({ _id: { $in: keys } }, { projection: { sequence: 1, statusSequence: 1, statusId: 1, changedAt: 1, updatedAt: 1 } })
    .toArray();
  return new Map(
    docs.map((d) => [
      d._id,
      { sequence: d.sequence, statusSequence: statusSequenceOf(d), changedAt: d.changedAt, updatedAt: d.updatedAt ?? d.changedAt } satisfies ShownChangeTimes,
    ]),
  );
}

/** The previous version's documents of these sales orders, whose visible times a rebuild carries over where it shows the same. */
async function shipmentsShownBy(previous: ReadModelCollections, changes: StateChange<ShipmentsState>[]): Promise<Map<string, ShipmentsDocument>> {
  const keys = changes.map((c) => documentId(c.after.clientId, c.after.salesOrderNumber));
  const docs = await previous.shipments.find({ _id: { $in: keys } }).toArray();
  return new Map(docs.map((d) => [d._id, d]));
}

export type { OrderStatusDocument, ShipmentsDocument };
