import type { Collection, Document, Filter } from 'mongodb';
import type { ShipmentsState } from '../../../projections/state.js';
import { changeTimeOverlapMs, type ReadOptions } from './changed-since.js';
import type { ShipmentsDocument } from './documents.js';
import { groupKey, maxPurchaseOrdersPerAnswer, type PurchaseOrderGroup } from '../../../projections/lookups/purchase-order-groups.js';
import { ofPurchaseOrders } from './purchase-order-filter.js';
import { newsKey, newsOf, purchaseOrderCompleteChanged, type PurchaseOrderMember, type ShipmentNewsSince } from '../../../projections/polling/shipment-news.js';

// The reads of the shipment lookups that 1.0.0 and 2.0.0 share (queries.md): what each answers of
// the sales orders read is theirs to say (`answerOf`), and so is what is read of them (`projection`).

const memberProjection = { _id: 0, clientId: 1, purchaseOrderNumber: 1, complete: 1, completeChangedAt: 1, purchaseOrderSetAt: 1 } as const;

/**
 * What a lookup answers of a sales order with news (`news`, see newsOf, as the document `doc`
 * read holds it), or undefined for nothing.
 */
export type AnswerOfNews<S> = (doc: ShipmentsDocument, news: ShipmentsState, since: ShipmentNewsSince) => S | undefined;

export interface ShipmentNews<S> {
  groups: PurchaseOrderGroup<S>[];
  /** All sales orders of the purchase orders answered, for their complete flags. */
  members: Map<string, PurchaseOrderMember[]>;
  /** A purchase order past the cap had news. */
  more: boolean;
}

/**
 * Shipment queryType 3 (queries.md): what is new since `timestamp`, each purchase order whole
 * (all its sales orders with news), in order of its earliest news (see newsKey), at most an
 * answer's. The server chooses the purchase orders by the news of each sales order alone, and by
 * the purchase orders sales orders left since (keyed at the timestamp); those whose complete flag
 * or members changed since are then answered with every location, which can only bring a purchase
 * order's news earlier (to the timestamp), so the answer is ordered again by what it holds: a
 * partner resuming from its last purchase order misses none. A chosen purchase order with nothing
 * to answer makes room for the next one, so a capped answer holds exactly as many as fit.
 * `projection` must keep the times (completeChangedAt, visibleAt) that newsOf reads.
 */
export async function newsSince<S>(
  collection: Collection<ShipmentsDocument>,
  clientIds: string[],
  timestamp: Date,
  projection: Document,
  answerOf: AnswerOfNews<S>,
  read: ReadOptions,
): Promise<ShipmentNews<S>> {
  const since: ShipmentNewsSince = { shippedSince: timestamp, visibleSince: new Date(timestamp.getTime() - changeTimeOverlapMs) };
  const base: Filter<ShipmentsDocument> = { clientId: { $in: clientIds }, purchaseOrderNumber: { $exists: true } };
  const news = { lastNewsAt: { $gte: since.visibleSince } };
  const left = { clientId: { $in: clientIds }, 'leftPurchaseOrders.at': { $gte: since.visibleSince } };
  const members = new Map<string, PurchaseOrderMember[]>();
  const answered: KeyedGroup<S>[] = [];
  const seen = new Set<string>();
  let skip = 0;
  let more = false;
  for (;;) {
    const room = maxPurchaseOrdersPerAnswer - answered.length;
    const found = await firstPurchaseOrders(collection, { ...base, ...news }, left, since, skip, room, read);
    skip += Math.min(found.length, room);
    // News written between two rounds can move a purchase order past the skip: none is answered twice.
    const chosen = found.slice(0, room).filter((g) => !seen.has(groupKey(g)));
    for (const g of chosen) seen.add(groupKey(g));
    const { groups, membersRead } = await answerPurchaseOrders(collection, chosen, since, news, projection, answerOf, read);
    for (const [key, value] of membersRead) members.set(key, value);
    answered.push(...groups);
    if (found.length <= room) break;
    if (answered.length === maxPurchaseOrdersPerAnswer) {
      more = true;
      break;
    }
  }
  answered.sort((a, b) => a.key - b.key || a.clientId.localeCompare(b.clientId) || a.purchaseOrderNumber.localeCompare(b.purchaseOrderNumber));
  return {
    groups: answered.map((g) => ({ clientId: g.clientId, purchaseOrderNumber: g.purchaseOrderNumber, members: g.members.map((m) => m.answer) })),
    members,
    more,
  };
}

interface KeyedGroup<S> {
  clientId: string;
  purchaseOrderNumber: string;
  members: KeyedNews<S>[];
  key: number;
}

/**
 * What is answered of the chosen purchase orders (those with nothing to answer left out): each
 * read once, whole where its complete flag changed since or a sales order left it since, its news
 * only otherwise; and all their members, for their flags.
 */
async function answerPurchaseOrders<S>(
  collection: Collection<ShipmentsDocument>,
  chosen: FirstChange[],
  since: ShipmentNewsSince,
  news: Filter<ShipmentsDocument>,
  projection: Document,
  answerOf: AnswerOfNews<S>,
  read: ReadOptions,
): Promise<{ groups: KeyedGroup<S>[]; membersRead: Map<string, PurchaseOrderMember[]> }> {
  const membersRead = await membersOf(collection, chosen, read);
  const whole = new Set(chosen.filter((g) => g.left || purchaseOrderCompleteChanged(membersRead.get(groupKey(g)) ?? [], since.visibleSince)).map(groupKey));
  const answered = new Map(chosen.map((g) => [groupKey(g), { clientId: g.clientId, purchaseOrderNumber: g.purchaseOrderNumber, members: [] as KeyedNews<S>[], key: Infinity }]));
  const reads: [FirstChange[], Filter<ShipmentsDocument>][] = [
    ...inParts(chosen.filter((g) => !whole.has(groupKey(g)))).map((part): [FirstChange[], Filter<ShipmentsDocument>] => [part, news]),
    ...inParts(chosen.filter((g) => whole.has(groupKey(g)))).map((part): [FirstChange[], Filter<ShipmentsDocument>] => [part, {}]),
  ];
  await sideBySide(read, reads, async ([part, filter], options) => {
    const ofPart = new Set(part.map(groupKey));
    for await (const so of collection.find<ShipmentsDocument>({ ...ofPurchaseOrders(part), ...filter }, { projection, ...options })) {
      const key = groupKey(so);
      // ofPurchaseOrders also matches other combinations of the clients and numbers: each part keeps its own.
      if (!ofPart.has(key)) continue;
      const fresh = newsOf(so, since, whole.has(key));
      const answer = fresh && answerOf(so, fresh, since);
      if (fresh && answer !== undefined) answered.get(key)!.members.push({ so: fresh, answer, key: newsKey(fresh, since) });
    }
  });
  const groups = [...answered.values()].filter((g) => g.members.length > 0);
  for (const group of groups) {
    group.members.sort((a, b) => a.key - b.key || compareKeys(a.so, b.so));
    group.key = (group.members[0] as KeyedNews<S>).key;
  }
  return { groups, membersRead };
}

/** Every sales order of these purchase orders, answered or not, with what their complete flags depend on. */
export async function membersOf(
  collection: Collection<ShipmentsDocument>,
  groups: { clientId: string; purchaseOrderNumber: string }[],
  read: ReadOptions,
): Promise<Map<string, PurchaseOrderMember[]>> {
  const members = new Map<string, PurchaseOrderMember[]>(groups.map((g) => [groupKey(g), []]));
  if (groups.length === 0) return members;
  const all = collection.find<PurchaseOrderMember & { clientId: string; purchaseOrderNumber: string }>(ofPurchaseOrders(groups), { projection: memberProjection, ...read });
  for await (const so of all) members.get(groupKey(so))?.push(so);
  return members;
}

/**
 * newsKey of a sales order's news (newsOf without a purchase order's flag), computed by the server:
 * the earliest shipmentDate of its new packages, the timestamp for a location whose complete flag
 * changed with none, null when it has no news. A sales order whose own flag changed (every
 * location of it is then answered), or that came under its purchase order, since then, is keyed at
 * the timestamp too: its purchase order's flag may have changed with it (one left with nothing to
 * answer makes room for the next in newsSince).
 */
function serverNewsKey(since: ShipmentNewsSince): Document {
  const { shippedSince, visibleSince } = since;
  const isNew = { $or: [{ $gte: ['$$p.shipmentDate', shippedSince] }, { $gte: ['$$p.visibleAt', visibleSince] }] };
  const locationKey = {
    $let: {
      vars: { fresh: { $filter: { input: '$$l.packages', as: 'p', cond: isNew } } },
      in: {
        $cond: [{ $gt: [{ $size: '$$fresh' }, 0] }, { $min: '$$fresh.shipmentDate' }, { $cond: [{ $gte: ['$$l.completeChangedAt', visibleSince] }, shippedSince, null] }],
      },
    },
  };
  const mayChangePurchaseOrder = { $or: [{ $gte: ['$completeChangedAt', visibleSince] }, { $gte: ['$purchaseOrderSetAt', visibleSince] }] };
  return { $min: [{ $min: { $map: { input: '$locations', as: 'l', in: locationKey } } }, { $cond: [mayChangePurchaseOrder, shippedSince, null] }] };
}

interface FirstChange {
  clientId: string;
  purchaseOrderNumber: string;
  /** A sales order left it since: answered whole. */
  left?: boolean;
}

/**
 * The purchase orders (`limit` of them past the first `skip`, and one more when more matched)
 * whose earliest matching sales order comes first, by serverNewsKey, or that a sales order left
 * since (keyed at the timestamp), in that order. The server groups and sorts them: a top-k sort
 * that holds no more than an answer's purchase orders, and sends only their keys.
 */
async function firstPurchaseOrders(
  collection: Collection<ShipmentsDocument>,
  match: Filter<ShipmentsDocument>,
  left: Filter<ShipmentsDocument>,
  since: ShipmentNewsSince,
  skip: number,
  limit: number,
  read: ReadOptions,
): Promise<FirstChange[]> {
  const leftSince = [
    { $match: left },
    { $unwind: '$leftPurchaseOrders' },
    { $match: { 'leftPurchaseOrders.at': { $gte: since.visibleSince } } },
    { $project: { _id: 0, clientId: 1, purchaseOrderNumber: '$leftPurchaseOrders.purchaseOrderNumber', first: { $literal: since.shippedSince }, left: { $literal: true } } },
  ];
  const firsts = await collection
    .aggregate<{ _id: FirstChange; left: boolean }>([
      { $match: match },
      { $project: { _id: 0, clientId: 1, purchaseOrderNumber: 1, first: serverNewsKey(since), left: { $literal: false } } },
      { $unionWith: { coll: collection.collectionName, pipeline: leftSince } },
      { $group: { _id: { clientId: '$clientId', purchaseOrderNumber: '$purchaseOrderNumber' }, first: { $min: '$first' }, left: { $max: '$left' } } },
      // A purchase order whose sales orders matched with nothing to answer (first null) is not chosen.
      { $match: { first: { $ne: null } } },
      { $sort: { first: 1, '_id.clientId': 1, '_id.purchaseOrderNumber': 1 } },
      { $skip: skip },
      // One more than asked: whether more matched.
      { $limit: limit + 1 },
    ], read)
    .toArray();
  return firsts.map((f) => ({ ...f._id, left: f.left }));
}

/** A sales order's news with its newsKey, and what is answered of it. */
interface KeyedNews<S> {
  so: ShipmentsState;
  answer: S;
  key: number;
}

/**
 * Reads of many purchase orders' sales orders are made as up to `parallelReads` reads side by side,
 * one for each `partSize` purchase orders begun, the purchase orders shared evenly among them (so a
 * part may hold fewer than `partSize`: 1,500 make two of 750): the server reads one part while the
 * others' documents are decoded here.
 */
const parallelReads = 2;
const partSize = 1_000;

function inParts<T>(items: T[]): T[][] {
  const parts = Math.min(parallelReads, Math.ceil(items.length / partSize));
  return Array.from({ length: parts }, (_, i) => items.slice(Math.floor((i * items.length) / parts), Math.floor(((i + 1) * items.length) / parts)));
}

/** Runs `work` on each of `items` side by side; when one fails, the others' reads are ended too (their signal). */
async function sideBySide<T>(read: ReadOptions, items: T[], work: (item: T, options: ReadOptions) => Promise<void>): Promise<void> {
  const failed = new AbortController();
  const signal = read.signal ? AbortSignal.any([read.signal, failed.signal]) : failed.signal;
  await Promise.all(
    items.map((item) =>
      work(item, { signal }).catch((error: unknown) => {
        failed.abort(error);
        throw error;
      }),
    ),
  );
}


function compareKeys(a: ShipmentsState, b: ShipmentsState): number {
  return a.clientId.localeCompare(b.clientId) || a.salesOrderNumber.localeCompare(b.salesOrderNumber);
}
