import type { Collection, Document, Filter, Sort } from 'mongodb';
import type { OrderLookups, ShipmentQuery, StatusQuery } from '../../../contracts/lookups.js';
import type { OrderStatusView, ShipmentNotificationView } from '../../../contracts/lookup-answers.js';
import { purchaseOrderComplete } from '../../../projections/completion.js';
import type { ShipmentsState, StatusFields } from '../../../projections/state.js';
import { shipmentsStateProjection, type OrderStatusDocument, type ReadModelCollections, type ShipmentsDocument } from './documents.js';
import { groupByPurchaseOrder, groupKey, maxPurchaseOrdersPerAnswer, type PurchaseOrderGroup } from './purchase-order-groups.js';
import { newsKey, newsOf, purchaseOrderCompleteChanged, type PurchaseOrderMember, type ShipmentNewsSince } from './shipment-news.js';
import { toOrderStatusDetail, toSalesOrderShipment } from './documents-to-answers.js';

/**
 * Change and visible times are stamped by the database server; a poll's timestamp comes from the
 * partner's clock. The overlap absorbs clock skew between them: a change may be answered twice
 * on consecutive polls, never missed.
 */
export const changeTimeOverlapMs = 5_000;

const byPurchaseOrder: Sort = { purchaseOrderNumber: 1, clientId: 1, salesOrderNumber: 1 };
const statusProjection = { _id: 0, sequence: 0, open: 0 } as const;
const shipmentsProjection = { ...shipmentsStateProjection, sequence: 0 } as const;
/** queryType 3 reads the visible times too, to narrow each sales order to its news. */
const shipmentNewsProjection = { _id: 0, sequence: 0, lastNewsAt: 0, shipmentDates: 0 } as const;
const memberProjection = { _id: 0, clientId: 1, purchaseOrderNumber: 1, complete: 1, completeChangedAt: 1, purchaseOrderSetAt: 1 } as const;

/** An answerable sales order: it has a purchase order number, which only a status event brings. */
type StatusMember = Omit<OrderStatusDocument, '_id' | 'sequence' | 'open'> & StatusFields;

/**
 * Documents per round trip of a read that stops at the answer's end, so that the server reads
 * little past it (by default the first getMore sends up to 16 MiB, far past the answer).
 */
const readPastTheAnswer = 1_000;

/** Options of every read of a lookup: its signal closes the cursors and ends the reads under way. */
interface ReadOptions {
  signal?: AbortSignal;
}

export class MongoOrderLookups implements OrderLookups {
  constructor(private readonly collections: ReadModelCollections) {}

  async orderStatus(clientIds: string[], query: StatusQuery, signal?: AbortSignal): Promise<OrderStatusView[]> {
    const read: ReadOptions = signal ? { signal } : {};
    if (clientIds.length === 0) return [];
    const base: Filter<OrderStatusDocument> = { clientId: { $in: clientIds }, purchaseOrderNumber: { $exists: true } };
    let groups: PurchaseOrderGroup<StatusMember>[];
    switch (query.queryType) {
      case 1:
        groups = await this.statusByPurchaseOrder({ ...base, purchaseOrderNumber: query.referenceNumber }, read);
        break;
      case 2:
        groups = await this.statusByPurchaseOrder({ ...base, salesOrderNumber: query.referenceNumber }, read);
        break;
      case 3:
        groups = await this.statusChangedSince(base, new Date((query.statusTimeStamp?.getTime() ?? 0) - changeTimeOverlapMs), read);
        break;
      case 4:
        groups = await this.statusByPurchaseOrder({ ...base, open: true }, read);
        break;
      default:
        return [];
    }
    return groups.map((g) => ({ purchaseOrderNumber: g.purchaseOrderNumber, details: g.members.map(toOrderStatusDetail) }));
  }

  private statusByPurchaseOrder(filter: Filter<OrderStatusDocument>, read: ReadOptions): Promise<PurchaseOrderGroup<StatusMember>[]> {
    return groupByPurchaseOrder(this.collections.orderStatus.find<StatusMember>(filter, { sort: byPurchaseOrder, projection: statusProjection, ...read }));
  }

  /**
   * Ascending by change time, each purchase order whole at its earliest change: over the cap, the
   * purchase orders kept are those whose earliest change comes first (then by client and number),
   * with all their changes. The changes are read in change-time order (the index by_change_time,
   * merged over the clients), where a purchase order first appears at its earliest change: reading
   * stops just past the earliest change of the last purchase order that fits, and the later changes
   * of the purchase orders kept are read by number.
   */
  private async statusChangedSince(base: Filter<OrderStatusDocument>, after: Date, read: ReadOptions): Promise<PurchaseOrderGroup<StatusMember>[]> {
    const inOrder = this.collections.orderStatus.find<StatusMember>(
      { ...base, changedAt: { $gt: after } },
      { sort: { changedAt: 1 }, projection: statusProjection, batchSize: readPastTheAnswer, ...read },
    );
    const firsts = new Map<string, { group: PurchaseOrderGroup<StatusMember>; first: number }>();
    /** The earliest change of the last purchase order that fits, once as many as fit have appeared. */
    let lastFirst: number | undefined;
    let readPastIt = false;
    for await (const so of inOrder) {
      const at = so.changedAt.getTime();
      if (lastFirst !== undefined && at > lastFirst) {
        readPastIt = true;
        break; // closes the cursor
      }
      const key = groupKey(so);
      let entry = firsts.get(key);
      if (!entry) {
        entry = { group: { clientId: so.clientId, purchaseOrderNumber: so.purchaseOrderNumber as string, members: [] }, first: at };
        firsts.set(key, entry);
        if (firsts.size === maxPurchaseOrdersPerAnswer) lastFirst = at;
      }
      entry.group.members.push(so);
    }
    // In order of appearance, that is of earliest change; those that first changed at the same time by client and number.
    const chosen = [...firsts.values()]
      .sort((a, b) => a.first - b.first || a.group.clientId.localeCompare(b.group.clientId) || a.group.purchaseOrderNumber.localeCompare(b.group.purchaseOrderNumber))
      .slice(0, maxPurchaseOrdersPerAnswer)
      .map((entry) => entry.group);
    if (readPastIt) {
      const kept = new Map(chosen.map((group) => [groupKey(group), group]));
      const later = this.collections.orderStatus.find<StatusMember>({ ...ofPurchaseOrders(chosen), changedAt: { $gt: new Date(lastFirst as number) } }, { projection: statusProjection, ...read });
      // ofPurchaseOrders also matches other combinations of the clients and numbers: only the chosen ones' are kept.
      for await (const so of later) kept.get(groupKey(so))?.members.push(so);
    }
    const byChangeTime = (a: StatusMember, b: StatusMember) => a.changedAt.getTime() - b.changedAt.getTime() || a.salesOrderNumber.localeCompare(b.salesOrderNumber);
    for (const group of chosen) group.members.sort(byChangeTime);
    return chosen;
  }

  async shipmentNotifications(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<ShipmentNotificationView[]> {
    const read: ReadOptions = signal ? { signal } : {};
    const base: Filter<ShipmentsDocument> = { clientId: { $in: clientIds }, purchaseOrderNumber: { $exists: true } };
    if (clientIds.length === 0 || ![1, 2, 3].includes(query.queryType)) return [];

    let groups: PurchaseOrderGroup<ShipmentsState>[];
    let members: Map<string, PurchaseOrderMember[]>;
    if (query.queryType === 3) {
      ({ groups, members } = await this.newsSince(base, query.shipmentDateTimeStamp ?? new Date(0), read));
    } else {
      const filter = query.queryType === 1 ? { ...base, purchaseOrderNumber: query.referenceNumber } : { ...base, salesOrderNumber: query.referenceNumber };
      groups = await groupByPurchaseOrder(withLocations(this.collections.shipments.find<ShipmentsDocument>(filter, { sort: byPurchaseOrder, projection: shipmentsProjection, ...read })));
      members = await this.membersOf(groups, read);
    }

    return groups.map((g) => ({
      purchaseOrderNumber: g.purchaseOrderNumber,
      complete: purchaseOrderComplete(members.get(groupKey(g)) ?? []),
      salesOrders: g.members.map(toSalesOrderShipment),
    }));
  }

  /**
   * Shipment queryType 3 (queries.md): what is new since `timestamp`, each purchase order whole
   * (all its sales orders with news), in order of its earliest news (see newsKey), at most an
   * answer's. The server chooses the purchase orders by the news of each sales order alone; the
   * sales orders of those whose complete flag changed since are then answered with every location,
   * which can only bring a purchase order's news earlier (to the timestamp), so the answer is
   * ordered again by what it holds: a partner resuming from its last purchase order misses none.
   */
  private async newsSince(base: Filter<ShipmentsDocument>, timestamp: Date, read: ReadOptions): Promise<{ groups: PurchaseOrderGroup<ShipmentsState>[]; members: Map<string, PurchaseOrderMember[]> }> {
    const since: ShipmentNewsSince = { shippedSince: timestamp, visibleSince: new Date(timestamp.getTime() - changeTimeOverlapMs) };
    const news = { lastNewsAt: { $gte: since.visibleSince } };
    const first = await firstPurchaseOrders(this.collections.shipments, { ...base, ...news }, serverNewsKey(since), read);
    const members = await this.membersOf(first, read);
    const flagChanged = new Set(first.map(groupKey).filter((key) => purchaseOrderCompleteChanged(members.get(key) ?? [], since.visibleSince)));
    const answered = new Map(first.map((g) => [groupKey(g), { clientId: g.clientId, purchaseOrderNumber: g.purchaseOrderNumber, members: [] as KeyedNews[], key: Infinity }]));
    // Each purchase order read once: whole where its flag changed, its news only otherwise.
    const reads: [FirstChange[], Filter<ShipmentsDocument>][] = [
      ...inParts(first.filter((g) => !flagChanged.has(groupKey(g)))).map((part): [FirstChange[], Filter<ShipmentsDocument>] => [part, news]),
      ...inParts(first.filter((g) => flagChanged.has(groupKey(g)))).map((part): [FirstChange[], Filter<ShipmentsDocument>] => [part, {}]),
    ];
    await sideBySide(read, reads, async ([part, filter], options) => {
      const ofPart = new Set(part.map(groupKey));
      for await (const so of this.collections.shipments.find<ShipmentsDocument>({ ...ofPurchaseOrders(part), ...filter }, { projection: shipmentNewsProjection, ...options })) {
        const key = groupKey(so);
        // ofPurchaseOrders also matches other combinations of the clients and numbers: each part keeps its own.
        if (!ofPart.has(key)) continue;
        const answer = newsOf(so, since, flagChanged.has(key));
        if (answer) answered.get(key)!.members.push({ so: answer, key: newsKey(answer, since) });
      }
    });
    const groups = [...answered.values()].filter((g) => g.members.length > 0);
    for (const group of groups) {
      group.members.sort((a, b) => a.key - b.key || compareKeys(a.so, b.so));
      group.key = (group.members[0] as KeyedNews).key;
    }
    groups.sort((a, b) => a.key - b.key || a.clientId.localeCompare(b.clientId) || a.purchaseOrderNumber.localeCompare(b.purchaseOrderNumber));
    return { groups: groups.map((g) => ({ clientId: g.clientId, purchaseOrderNumber: g.purchaseOrderNumber, members: g.members.map((m) => m.so) })), members };
  }

  /** Every sales order of these purchase orders, answered or not, with what their complete flags depend on. */
  private async membersOf(groups: { clientId: string; purchaseOrderNumber: string }[], read: ReadOptions): Promise<Map<string, PurchaseOrderMember[]>> {
    const members = new Map<string, PurchaseOrderMember[]>(groups.map((g) => [groupKey(g), []]));
    if (groups.length === 0) return members;
    const all = this.collections.shipments.find<PurchaseOrderMember & { clientId: string; purchaseOrderNumber: string }>(ofPurchaseOrders(groups), { projection: memberProjection, ...read });
    for await (const so of all) members.get(groupKey(so))?.push(so);
    return members;
  }
}

/**
 * newsKey of a sales order's news (newsOf without a purchase order's flag), computed by the server:
 * the earliest shipmentDate of its new packages, the timestamp for a location whose complete flag
 * changed with none, null when it has no news. A sales order whose own flag changed, or that came
 * under its purchase order, since then, is keyed at the timestamp too: its purchase order's flag
 * may have changed with it (a purchase order whose flag did not, and that has no other news, is
 * then left out of the answer by newsSince).
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
}

/**
 * The purchase orders (at most an answer's) whose earliest matching sales order comes first, by
 * `firstOf` (a date of each sales order), in that order. The server groups and sorts them: a top-k
 * sort that holds no more than an answer's purchase orders, and sends only their keys.
 */
async function firstPurchaseOrders<T extends Document>(collection: Collection<T>, match: Filter<T>, firstOf: unknown, read: ReadOptions): Promise<FirstChange[]> {
  const firsts = await collection
    .aggregate<{ _id: FirstChange }>([
      { $match: match },
      { $group: { _id: { clientId: '$clientId', purchaseOrderNumber: '$purchaseOrderNumber' }, first: { $min: firstOf } } },
      // A purchase order whose sales orders matched with nothing to answer (firstOf null) is not chosen.
      { $match: { first: { $ne: null } } },
      { $sort: { first: 1, '_id.clientId': 1, '_id.purchaseOrderNumber': 1 } },
      { $limit: maxPurchaseOrdersPerAnswer },
    ], read)
    .toArray();
  return firsts.map((f) => f._id);
}

/** A sales order's news with its newsKey. */
interface KeyedNews {
  so: ShipmentsState;
  key: number;
}

/**
 * Reads of many purchase orders' sales orders are made as up to this many reads side by side, of
 * at least `partSize` purchase orders each: the server reads one part while the others' documents
 * are decoded here.
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

/** A filter for the sales orders of these purchase orders (and of other combinations of their clients and numbers, to drop). */
function ofPurchaseOrders(groups: { clientId: string; purchaseOrderNumber: string }[]) {
  return {
    clientId: { $in: [...new Set(groups.map((g) => g.clientId))] },
    purchaseOrderNumber: { $in: [...new Set(groups.map((g) => g.purchaseOrderNumber))] },
  };
}

/** Only sales orders with at least one location are answered. */
async function* withLocations(items: AsyncIterable<ShipmentsDocument>): AsyncGenerator<ShipmentsDocument> {
  for await (const so of items) if (so.locations.length > 0) yield so;
}

function compareKeys(a: ShipmentsState, b: ShipmentsState): number {
  return a.clientId.localeCompare(b.clientId) || a.salesOrderNumber.localeCompare(b.salesOrderNumber);
}
