import type { Collection, Document, Filter } from 'mongodb';
import type { ShipmentsState } from '../../../projections/state.js';
import { changeTimeOverlapMs, type ReadOptions } from './changed-since.js';
import type { ShipmentsDocument } from './documents.js';
import { groupKey, maxPurchaseOrdersPerAnswer, type PurchaseOrderGroup } from '../../../projections/lookups/purchase-order-groups.js';
import { ofPurchaseOrders } from './purchase-order-filter.js';
import { confirmStillStored } from './stored-versions.js';
import { compareNews, newsKey, newsKeyedInV2, newsOf, purchaseOrderCompleteChanged, sendable, type NewsPlace, type PurchaseOrderMember, type ShipmentNewsSince } from '../../../projections/polling/shipment-news.js';

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

/** What newsSince and newsSinceInBatches read: the news of `clientIds` since `timestamp`, answered by `answerOf` from the documents as `projection` reads them. */
export interface NewsQuery<S> {
  collection: Collection<ShipmentsDocument>;
  clientIds: string[];
  timestamp: Date;
  projection: Document;
  answerOf: AnswerOfNews<S>;
  /**
   * `answerOf` leaves out every location without a package (2.0.0's answers): the order is keyed
   * by the answered locations that hold one (newsKeyedInV2), and the plan keys only the sales
   * orders with such a location, so that a purchase order with none makes room for the next
   * instead of being planned and then left out.
   */
  packagesOnly: boolean;
  /**
   * 2.1.0's news rule (docs/design/queries.md): a package whose shipReferences changed since is news
   * too (newsOf's `countsReferences`), chosen, planned and read so; `projection` must keep its time.
   */
  countsReferences: boolean;
  read: ReadOptions;
}

/** How a query's sales orders are read and answered: each version's one definition (lookups.ts, lookups-v2.ts). */
export type Answering<S> = Pick<NewsQuery<S>, 'projection' | 'answerOf' | 'packagesOnly' | 'countsReferences'>;

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
export async function newsSince<S>({ collection, clientIds, timestamp, projection, answerOf, packagesOnly, countsReferences, read }: NewsQuery<S>): Promise<ShipmentNews<S>> {
  const since = newsSinceOf(timestamp);
  const members = new Map<string, PurchaseOrderMember[]>();
  const { chosen, more } = await chooseInRounds(collection, clientIds, since, countsReferences, read, async (found) => {
    const membersRead = await membersOf(collection, found, read);
    for (const [key, value] of membersRead) members.set(key, value);
    const wholeness = found.map((g) => ({ ...g, whole: isWhole(g, membersRead.get(groupKey(g)) ?? [], since) }));
    return readNews(collection, wholeness, since, { projection, answerOf, packagesOnly, countsReferences }, read);
  });
  return {
    groups: chosen.map((g) => ({ clientId: g.clientId, purchaseOrderNumber: g.purchaseOrderNumber, members: g.members.map((m) => m.answer) })),
    members,
    more,
  };
}

/** A purchase order of a streamed answer: what is answered of its sales orders, and all its sales orders (for its complete flag). */
export interface AnsweredPurchaseOrder<S> {
  clientId: string;
  purchaseOrderNumber: string;
  members: S[];
  purchaseOrderMembers: PurchaseOrderMember[];
}

export interface StreamedShipmentNews<S> {
  /** A purchase order past the cap had news. */
  more: boolean;
  /** The purchase orders, in the answer's order, a batch at a time as they are read. */
  batches: AsyncIterable<AnsweredPurchaseOrder<S>[]>;
}

/**
 * newsSince's answer, read and handed on a batch of purchase orders at a time (docs/partners.md,
 * "Large answers"): its order is planned before the large reads. The purchase orders are chosen as
 * newsSince chooses them, and each one's key (newsKey, the order of the answer) is computed from
 * its sales orders by the server (planNews), which is what the reads of the whole documents then
 * find unless a write came in between. Then the purchase
 * orders are read in that order, a batch at a time, the next batch read while the last is sent;
 * a purchase order is handed on only once none still to be read sorts before it at its planned
 * key (a write in between can move a key later: that one waits; see sendable), so the order is
 * newsSince's unless a write came in between.
 * Promise: resolves once the order is planned (a failure before is the caller's to answer as an
 * error), the batches then. After the last read, the collection is confirmed to be still stored
 * (confirmStillStored): a version dropped mid-answer fails the answer, never shortens it.
 */
export async function newsSinceInBatches<S>({ collection, clientIds, timestamp, projection, answerOf, packagesOnly, countsReferences, read }: NewsQuery<S>): Promise<StreamedShipmentNews<S>> {
  const since = newsSinceOf(timestamp);
  const { chosen, more } = await chooseInRounds(collection, clientIds, since, countsReferences, read, (found) => planNews(collection, found, since, { packagesOnly, countsReferences }, read));
  return { more, batches: readInOrder(collection, chosen, since, { projection, answerOf, packagesOnly, countsReferences }, read) };
}

/** Purchase orders read in the first batch, then in each later one: a small first batch sends its bytes early. */
const firstBatch = 100;
const laterBatches = 500;

async function* readInOrder<S>(
  collection: Collection<ShipmentsDocument>,
  planned: PlannedPurchaseOrder[],
  since: ShipmentNewsSince,
  answering: Answering<S>,
  read: ReadOptions,
): AsyncGenerator<AnsweredPurchaseOrder<S>[]> {
  // Ended with the answer (its reader stopped taking batches: the partner went away) or with the request.
  const ended = new AbortController();
  const own: ReadOptions = { signal: read.signal ? AbortSignal.any([read.signal, ended.signal]) : ended.signal };
  const batches: PlannedPurchaseOrder[][] = [];
  for (let from = 0; from < planned.length; ) {
    const to = from + (batches.length === 0 ? firstBatch : laterBatches);
    batches.push(planned.slice(from, to));
    from = to;
  }
  const planOf = new Map(planned.map((p) => [groupKey(p), p]));
  const readBatch = (batch: PlannedPurchaseOrder[]) => readNews(collection, batch, since, answering, own);
  try {
    let next = batches[0] && readBatch(batches[0]);
    let waiting: KeyedGroup<S>[] = [];
    for (let i = 0; next; i++) {
      const groups = await next;
      const following = batches[i + 1];
      next = following && readBatch(following);
      // Awaited on the next round; until then, a failure is not an unhandled one.
      next?.catch(() => undefined);
      const { send: ready, wait } = sendable([...waiting, ...groups], following?.[0], planned.at(-1)!);
      waiting = wait;
      if (!following) await confirmStillStored(collection);
      if (ready.length > 0) {
        yield ready.map((g) => ({
          clientId: g.clientId,
          purchaseOrderNumber: g.purchaseOrderNumber,
          members: g.members.map((m) => m.answer),
          purchaseOrderMembers: planOf.get(groupKey(g))?.purchaseOrderMembers ?? [],
        }));
      }
    }
  } finally {
    ended.abort(new Error('the answer ended'));
  }
}

const newsSinceOf = (timestamp: Date): ShipmentNewsSince => ({ shippedSince: timestamp, visibleSince: new Date(timestamp.getTime() - changeTimeOverlapMs) });

/** The news filter of sales orders not answered whole: those that have news since. */
const newsFilter = (since: ShipmentNewsSince): Filter<ShipmentsDocument> => ({ lastNewsAt: { $gte: since.visibleSince } });

/** Candidates read in the first round after the first: each later one reads twice as many, up to the most. */
const laterRounds = { first: 1_000, most: 16_000 };

/**
 * The purchase orders an answer holds, in its order: the first by their keys (newsKey of what is
 * answered, which `answer` computes), at most an answer's worth, so that every one left out sorts
 * at or after the last one held, from whose time a partner resumes a full answer (docs/partners.md).
 * The server gives the candidates in order of a lower bound of their keys (firstPurchaseOrders: a
 * sales order that came under its purchase order since bounds it at the partner's timestamp, and
 * a catch-up on new orders is nothing but such), in rounds; each round's are answered (those with
 * nothing to answer left out) and the first by key kept, until none left can come before the last
 * kept. A round is one more read of every sales order with news: the plan's deadline (the store
 * timeout) bounds a catch-up so long that it cannot be planned in time. None is answered twice.
 */
async function chooseInRounds<G extends NewsPlace>(
  collection: Collection<ShipmentsDocument>,
  clientIds: string[],
  since: ShipmentNewsSince,
  countsReferences: boolean,
  read: ReadOptions,
  answer: (chosen: FirstChange[]) => Promise<G[]>,
): Promise<{ chosen: G[]; more: boolean }> {
  const base: Filter<ShipmentsDocument> = { clientId: { $in: clientIds }, purchaseOrderNumber: { $exists: true } };
  const left = { clientId: { $in: clientIds }, 'leftPurchaseOrders.at': { $gte: since.visibleSince } };
  const kept: G[] = [];
  const seen = new Set<string>();
  let after: FirstChange | undefined;
  let more = false;
  let later = laterRounds.first;
  for (;;) {
    const room = maxPurchaseOrdersPerAnswer - kept.length;
    const size = Math.max(room, later);
    if (room < later) later = Math.min(later * 2, laterRounds.most);
    const found = await firstPurchaseOrders(collection, { ...base, ...newsFilter(since) }, left, since, countsReferences, after, size, read);
    const round = found.slice(0, size);
    after = round.at(-1);
    // News written between two rounds can move a purchase order's bound later, past the page: none is answered twice.
    const chosen = round.filter((g) => !seen.has(groupKey(g)));
    for (const g of chosen) seen.add(groupKey(g));
    kept.push(...(await answer(chosen)));
    kept.sort(compareNews);
    if (kept.length > maxPurchaseOrdersPerAnswer) {
      kept.length = maxPurchaseOrdersPerAnswer;
      more = true;
    }
    const next = found[size];
    if (!next) break;
    // A tie on the time is no loss: a resume from it brings those at it again.
    if (kept.length === maxPurchaseOrdersPerAnswer && next.first.getTime() >= kept[maxPurchaseOrdersPerAnswer - 1]!.key) {
      more = true;
      break;
    }
  }
  return { chosen: kept, more };
}

interface KeyedGroup<S> {
  clientId: string;
  purchaseOrderNumber: string;
  members: KeyedNews<S>[];
  key: number;
}

/** A chosen purchase order, and whether it is answered whole (its complete flag changed since, or a sales order left it since). */
interface WithWholeness extends FirstChange {
  whole: boolean;
}

/** A purchase order of newsSinceInBatches' plan: its key, and all its sales orders for its complete flag. */
interface PlannedPurchaseOrder extends WithWholeness {
  key: number;
  purchaseOrderMembers: PurchaseOrderMember[];
}

/** Whether a chosen purchase order, with these sales orders (all of them), is answered whole. */
const isWhole = (g: FirstChange, members: readonly PurchaseOrderMember[], since: ShipmentNewsSince): boolean =>
  g.left === true || purchaseOrderCompleteChanged(members, since.visibleSince);

/**
 * The chosen purchase orders' keys, computed by the server (serverNewsKey, exact: as the reads of
 * whole documents would answer each sales order, readNews: only those with news unless their
 * purchase order is answered whole), and all their sales orders' flags (as membersOf reads them),
 * in one read: each purchase order's key both ways, the one taken chosen by its flags. Those with
 * nothing to answer are left out. The server sends each purchase order's keys and flags, not its documents.
 */
async function planNews(
  collection: Collection<ShipmentsDocument>,
  chosen: FirstChange[],
  since: ShipmentNewsSince,
  rule: Pick<Answering<unknown>, 'packagesOnly' | 'countsReferences'>,
  read: ReadOptions,
): Promise<PlannedPurchaseOrder[]> {
  if (chosen.length === 0) return [];
  const ofChosen = new Set(chosen.map(groupKey));
  const hasNews = { $gte: ['$lastNewsAt', since.visibleSince] };
  const found = collection.aggregate<{ _id: { clientId: string; purchaseOrderNumber: string }; ifNews: Date | null; ifWhole: Date | null; members: PurchaseOrderMember[] }>(
    [
      { $match: ofPurchaseOrders(chosen) },
      {
        $group: {
          _id: { clientId: '$clientId', purchaseOrderNumber: '$purchaseOrderNumber' },
          ifNews: { $min: { $cond: [hasNews, serverNewsKey(since, { exact: true, answeredWhole: false, ...rule }), null] } },
          ifWhole: { $min: serverNewsKey(since, { exact: true, answeredWhole: true, ...rule }) },
          // A time the document lacks is left out of its member, as membersOf's projection leaves it.
          members: { $push: { complete: '$complete', completeChangedAt: '$completeChangedAt', purchaseOrderSetAt: '$purchaseOrderSetAt' } },
        },
      },
    ],
    read,
  );
  const planned = new Map<string, { ifNews: Date | null; ifWhole: Date | null; members: PurchaseOrderMember[] }>();
  // ofPurchaseOrders also matches other combinations of the clients and numbers: only the chosen are kept.
  for await (const { _id, ...plan } of found) if (ofChosen.has(groupKey(_id))) planned.set(groupKey(_id), plan);
  return chosen.flatMap((g) => {
    const plan = planned.get(groupKey(g));
    if (!plan) return [];
    const whole = isWhole(g, plan.members, since);
    const key = whole ? plan.ifWhole : plan.ifNews;
    return key === null ? [] : [{ ...g, whole, key: key.getTime(), purchaseOrderMembers: plan.members }];
  });
}

/**
 * What is answered of these purchase orders (those with nothing to answer left out): each read
 * once, whole where `whole`, its news only otherwise; each one's members in order, at its key.
 */
async function readNews<S>(
  collection: Collection<ShipmentsDocument>,
  chosen: WithWholeness[],
  since: ShipmentNewsSince,
  { projection, answerOf, packagesOnly, countsReferences }: Answering<S>,
  read: ReadOptions,
): Promise<KeyedGroup<S>[]> {
  const whole = new Set(chosen.filter((g) => g.whole).map(groupKey));
  const answered = new Map(chosen.map((g) => [groupKey(g), { clientId: g.clientId, purchaseOrderNumber: g.purchaseOrderNumber, members: [] as KeyedNews<S>[], key: Infinity }]));
  const reads: [FirstChange[], Filter<ShipmentsDocument>][] = [
    ...inParts(chosen.filter((g) => !g.whole)).map((part): [FirstChange[], Filter<ShipmentsDocument>] => [part, newsFilter(since)]),
    ...inParts(chosen.filter((g) => g.whole)).map((part): [FirstChange[], Filter<ShipmentsDocument>] => [part, {}]),
  ];
  await sideBySide(read, reads, async ([part, filter], options) => {
    const ofPart = new Set(part.map(groupKey));
    // The store's strings were validated when written: decoding skips it (about a fifth of the decoding time).
    for await (const so of collection.find<ShipmentsDocument>({ ...ofPurchaseOrders(part), ...filter }, { projection, enableUtf8Validation: false, ...options })) {
      const key = groupKey(so);
      // ofPurchaseOrders also matches other combinations of the clients and numbers: each part keeps its own.
      if (!ofPart.has(key)) continue;
      const fresh = newsOf(so, since, whole.has(key), countsReferences);
      const answer = fresh && answerOf(so, fresh, since);
      if (fresh && answer !== undefined) answered.get(key)!.members.push({ so: fresh, answer, key: newsKey(packagesOnly ? newsKeyedInV2(so, fresh) : fresh, since) });
    }
  });
  const groups = [...answered.values()].filter((g) => g.members.length > 0);
  for (const group of groups) {
    group.members.sort((a, b) => a.key - b.key || compareKeys(a.so, b.so));
    group.key = (group.members[0] as KeyedNews<S>).key;
  }
  return groups;
}

/** Every sales order of these purchase orders, answered or not, with what their complete flags depend on. */
export async function membersOf(
  collection: Collection<ShipmentsDocument>,
  groups: { clientId: string; purchaseOrderNumber: string }[],
  read: ReadOptions,
): Promise<Map<string, PurchaseOrderMember[]>> {
  const members = new Map<string, PurchaseOrderMember[]>(groups.map((g) => [groupKey(g), []]));
  if (groups.length === 0) return members;
  const all = collection.find<PurchaseOrderMember & { clientId: string; purchaseOrderNumber: string }>(ofPurchaseOrders(groups), { projection: memberProjection, enableUtf8Validation: false, ...read });
  for await (const so of all) members.get(groupKey(so))?.push(so);
  return members;
}

/**
 * newsKey of a sales order's news, computed by the server. `exact`: as newsOf and newsKey give it
 * (the earliest shipmentDate of its new packages, the timestamp for an answered location without
 * one, null when nothing of it is answered), every location answered where `answeredWhole` (its
 * purchase order is answered whole) or its own complete flag changed since; with `packagesOnly`,
 * of its locations that hold a package only (newsKeyedInV2: 2.0.0 answers no other, and gives one
 * answered without a new package all its stored ones), so null when it has none. Else a lower bound
 * that needs no purchase order's flags (firstPurchaseOrders): a sales order whose own flag
 * changed, or that came under its purchase order, since then, is keyed at the timestamp, as its
 * purchase order's flag may have changed with it (one left with nothing to answer makes room for
 * the next in chooseInRounds). With `countsReferences` (2.1.0), a package whose shipReferences
 * changed since is new too, both ways. Exported for its table test (news-key.int.test.ts).
 */
export function serverNewsKey(
  since: ShipmentNewsSince,
  how: { exact: true; answeredWhole: boolean; packagesOnly: boolean; countsReferences: boolean } | { exact: false; countsReferences: boolean },
): Document {
  const { shippedSince, visibleSince } = since;
  const isNew = {
    $or: [
      { $gte: ['$$p.shipmentDate', shippedSince] },
      { $gte: ['$$p.visibleAt', visibleSince] },
      ...(how.countsReferences ? [{ $gte: ['$$p.referencesChangedAt', visibleSince] }] : []),
    ],
  };
  const ownFlagChanged = { $gte: ['$completeChangedAt', visibleSince] };
  const everyLocation = how.exact ? (how.answeredWhole ? true : ownFlagChanged) : false;
  const answeredWithoutNewPackage = { $or: [everyLocation, { $gte: ['$$l.completeChangedAt', visibleSince] }] };
  const locationKey = {
    $let: {
      vars: { fresh: { $filter: { input: '$$l.packages', as: 'p', cond: isNew } } },
      in: { $cond: [{ $gt: [{ $size: '$$fresh' }, 0] }, { $min: '$$fresh.shipmentDate' }, { $cond: [answeredWithoutNewPackage, shippedSince, null] }] },
    },
  };
  // 2.0.0 answers no location without a package, and orders by those it answers (newsKeyedInV2).
  const keyOfLocation = how.exact && how.packagesOnly ? { $cond: [{ $gt: [{ $size: '$$l.packages' }, 0] }, locationKey, null] } : locationKey;
  const key = { $min: { $map: { input: '$locations', as: 'l', in: keyOfLocation } } };
  if (how.exact) return key;
  const mayChangePurchaseOrder = { $or: [ownFlagChanged, { $gte: ['$purchaseOrderSetAt', visibleSince] }] };
  return { $min: [key, { $cond: [mayChangePurchaseOrder, shippedSince, null] }] };
}

interface FirstChange {
  clientId: string;
  purchaseOrderNumber: string;
  /** A sales order left it since: answered whole. */
  left?: boolean;
  /** At or before its key: serverNewsKey's lower bound over its sales orders. */
  first: Date;
}

/**
 * The purchase orders (`limit` of them after `after`, the last of the round before, and one more
 * when more matched) whose earliest matching sales order comes first, by serverNewsKey, or that a
 * sales order left since (keyed at the timestamp), in that order. The server groups and sorts
 * them: a top-k sort that holds no more than a round's purchase orders, and sends only their keys.
 * Paged by key, not by count: one that moves between two rounds shifts no other past the page.
 */
async function firstPurchaseOrders(
  collection: Collection<ShipmentsDocument>,
  match: Filter<ShipmentsDocument>,
  left: Filter<ShipmentsDocument>,
  since: ShipmentNewsSince,
  countsReferences: boolean,
  after: FirstChange | undefined,
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
    .aggregate<{ _id: Pick<FirstChange, 'clientId' | 'purchaseOrderNumber'>; left: boolean; first: Date }>([
      { $match: match },
      { $project: { _id: 0, clientId: 1, purchaseOrderNumber: 1, first: serverNewsKey(since, { exact: false, countsReferences }), left: { $literal: false } } },
      { $unionWith: { coll: collection.collectionName, pipeline: leftSince } },
      { $group: { _id: { clientId: '$clientId', purchaseOrderNumber: '$purchaseOrderNumber' }, first: { $min: '$first' }, left: { $max: '$left' } } },
      // A purchase order whose sales orders matched with nothing to answer (first null) is not chosen.
      { $match: { first: { $ne: null } } },
      ...(after ? [{ $match: { $or: [
        { first: { $gt: after.first } },
        { first: after.first, '_id.clientId': { $gt: after.clientId } },
        { first: after.first, '_id.clientId': after.clientId, '_id.purchaseOrderNumber': { $gt: after.purchaseOrderNumber } },
      ] } }] : []),
      { $sort: { first: 1, '_id.clientId': 1, '_id.purchaseOrderNumber': 1 } },
      // One more than asked: whether more matched.
      { $limit: limit + 1 },
    ], read)
    .toArray();
  return firsts.map((f) => ({ ...f._id, left: f.left, first: f.first }));
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
