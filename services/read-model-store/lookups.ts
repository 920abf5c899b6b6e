import type { Collection, Document, Filter, Sort } from 'mongodb';
import type { OrderLookups, ShipmentQuery, StatusQuery } from '../query/ports.js';
import type { OrderStatusView, ShipmentNotificationView } from '../query/views.js';
import { shipmentsStateProjection, type OrderStatusDocument, type ReadModelCollections, type ShipmentsDocument } from './documents.js';
import { groupByPurchaseOrder, maxPurchaseOrdersPerAnswer, type PurchaseOrderGroup } from './purchase-order-groups.js';
import { toOrderStatusDetail, toSalesOrderShipment, withPackagesShippedSince } from './views.js';

/**
 * Change times are stamped by the database server; a poll's statusTimeStamp comes from the
 * partner's clock. The overlap absorbs clock skew between them: a change may be answered twice
 * on consecutive polls, never missed.
 */
export const changeTimeOverlapMs = 5_000;

const byPurchaseOrder: Sort = { purchaseOrderNumber: 1, clientId: 1, salesOrderNumber: 1 };
const statusProjection = { _id: 0, sequence: 0, open: 0 } as const;
const shipmentsProjection = { ...shipmentsStateProjection, sequence: 0 } as const;

type StatusMember = Omit<OrderStatusDocument, '_id' | 'sequence' | 'open'>;

export class MongoOrderLookups implements OrderLookups {
  constructor(private readonly collections: ReadModelCollections) {}

  async orderStatus(clientIds: string[], query: StatusQuery): Promise<OrderStatusView[]> {
    if (clientIds.length === 0) return [];
    const base: Filter<OrderStatusDocument> = { clientId: { $in: clientIds }, purchaseOrderNumber: { $exists: true } };
    let groups: PurchaseOrderGroup<StatusMember>[];
    switch (query.queryType) {
      case 1:
        groups = await this.statusByPurchaseOrder({ ...base, purchaseOrderNumber: query.referenceNumber });
        break;
      case 2:
        groups = await this.statusByPurchaseOrder({ ...base, salesOrderNumber: query.referenceNumber });
        break;
      case 3:
        groups = await this.statusChangedSince(base, new Date((query.statusTimeStamp?.getTime() ?? 0) - changeTimeOverlapMs));
        break;
      case 4:
        groups = await this.statusByPurchaseOrder({ ...base, open: true });
        break;
      default:
        return [];
    }
    return groups.map((g) => ({ purchaseOrderNumber: g.purchaseOrderNumber, details: g.members.map(toOrderStatusDetail) }));
  }

  private statusByPurchaseOrder(filter: Filter<OrderStatusDocument>): Promise<PurchaseOrderGroup<StatusMember>[]> {
    return groupByPurchaseOrder(this.collections.orderStatus.find<StatusMember>(filter, { sort: byPurchaseOrder, projection: statusProjection }));
  }

  /**
   * Ascending by change time, each purchase order whole at its earliest change: over the cap, the
   * purchase orders kept are those whose earliest change comes first, with all their changes.
   */
  private async statusChangedSince(base: Filter<OrderStatusDocument>, after: Date): Promise<PurchaseOrderGroup<StatusMember>[]> {
    const changed = { ...base, changedAt: { $gt: after } };
    const first = await firstPurchaseOrders(this.collections.orderStatus, changed, '$changedAt');
    const members = this.collections.orderStatus.find<StatusMember>({ ...ofPurchaseOrders(first), changedAt: { $gt: after } }, { projection: statusProjection });
    const byChangeTime = (a: StatusMember, b: StatusMember) => a.changedAt.getTime() - b.changedAt.getTime() || a.salesOrderNumber.localeCompare(b.salesOrderNumber);
    return fillGroups(first, members, (so) => so, byChangeTime);
  }

  async shipmentNotifications(clientIds: string[], query: ShipmentQuery): Promise<ShipmentNotificationView[]> {
    const base: Filter<ShipmentsDocument> = { clientId: { $in: clientIds }, purchaseOrderNumber: { $exists: true } };
    if (clientIds.length === 0 || ![1, 2, 3].includes(query.queryType)) return [];

    let groups: PurchaseOrderGroup<ShipmentsDocument>[];
    if (query.queryType === 3) {
      groups = await this.shippedSince(base, query.shipmentDateTimeStamp ?? new Date(0));
    } else {
      const filter = query.queryType === 1 ? { ...base, purchaseOrderNumber: query.referenceNumber } : { ...base, salesOrderNumber: query.referenceNumber };
      groups = await groupByPurchaseOrder(withLocations(this.collections.shipments.find<ShipmentsDocument>(filter, { sort: byPurchaseOrder, projection: shipmentsProjection })));
    }

    const completion = await this.purchaseOrderCompletion(groups);
    return groups.map((g) => ({
      purchaseOrderNumber: g.purchaseOrderNumber,
      complete: completion.get(JSON.stringify([g.clientId, g.purchaseOrderNumber])) ?? false,
      salesOrders: g.members.map(toSalesOrderShipment),
    }));
  }

  /**
   * Packages shipped at or after `since`: the purchase orders in order of their earliest such
   * package (a poller can move forward), each whole, their packages narrowed to those.
   */
  private async shippedSince(base: Filter<ShipmentsDocument>, since: Date): Promise<PurchaseOrderGroup<ShipmentsDocument>[]> {
    const shippedSinceThen = { $elemMatch: { $gte: since } };
    const earliestSinceThen = { $min: { $filter: { input: '$shipmentDates', cond: { $gte: ['$$this', since] } } } };
    const first = await firstPurchaseOrders(this.collections.shipments, { ...base, shipmentDates: shippedSinceThen }, earliestSinceThen);
    const members = this.collections.shipments.find<ShipmentsDocument>({ ...ofPurchaseOrders(first), shipmentDates: shippedSinceThen }, { projection: shipmentsProjection });
    const narrowed = (so: ShipmentsDocument) => {
      const shipped = withPackagesShippedSince(so, since);
      return shipped.locations.length > 0 ? shipped : undefined;
    };
    return fillGroups(first, members, narrowed, (a, b) => earliestShipment(a) - earliestShipment(b) || compareKeys(a, b));
  }

  /** A purchase order is complete when every sales order of its client carrying its number is, answered or not. */
  private async purchaseOrderCompletion(groups: { clientId: string; purchaseOrderNumber: string }[]): Promise<Map<string, boolean>> {
    const completion = new Map<string, boolean>();
    if (groups.length === 0) return completion;
    const wanted = new Set(groups.map((g) => JSON.stringify([g.clientId, g.purchaseOrderNumber])));
    const siblings = this.collections.shipments.find(ofPurchaseOrders(groups), { projection: { _id: 0, clientId: 1, purchaseOrderNumber: 1, complete: 1 } });
    for await (const so of siblings) {
      const key = JSON.stringify([so.clientId, so.purchaseOrderNumber]);
      if (wanted.has(key)) completion.set(key, (completion.get(key) ?? true) && so.complete);
    }
    return completion;
  }
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
async function firstPurchaseOrders<T extends Document>(collection: Collection<T>, match: Filter<T>, firstOf: unknown): Promise<FirstChange[]> {
  const firsts = await collection
    .aggregate<{ _id: FirstChange }>([
      { $match: match },
      { $group: { _id: { clientId: '$clientId', purchaseOrderNumber: '$purchaseOrderNumber' }, first: { $min: firstOf } } },
      { $sort: { first: 1, '_id.clientId': 1, '_id.purchaseOrderNumber': 1 } },
      { $limit: maxPurchaseOrdersPerAnswer },
    ])
    .toArray();
  return firsts.map((f) => f._id);
}

/**
 * The chosen purchase orders' groups, in their order, with the sales orders read for them (those
 * `keep` turns to undefined, or of other combinations of the clients and numbers, are left out),
 * members in `memberOrder`.
 */
async function fillGroups<T extends { clientId: string; purchaseOrderNumber?: string }>(
  chosen: FirstChange[],
  members: AsyncIterable<T>,
  keep: (member: T) => T | undefined,
  memberOrder: (a: T, b: T) => number,
): Promise<PurchaseOrderGroup<T>[]> {
  const groups: PurchaseOrderGroup<T>[] = chosen.map(({ clientId, purchaseOrderNumber }) => ({ clientId, purchaseOrderNumber, members: [] }));
  const byKey = new Map(groups.map((g) => [JSON.stringify([g.clientId, g.purchaseOrderNumber]), g]));
  if (groups.length === 0) return groups;
  for await (const member of members) {
    const group = byKey.get(JSON.stringify([member.clientId, member.purchaseOrderNumber]));
    const kept = group && keep(member);
    if (kept) group.members.push(kept);
  }
  for (const group of groups) group.members.sort(memberOrder);
  return groups.filter((group) => group.members.length > 0);
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

function earliestShipment(so: ShipmentsDocument): number {
  return Math.min(...so.locations.flatMap((l) => l.packages.map((p) => p.shipmentDate.getTime())));
}

function compareKeys(a: ShipmentsDocument, b: ShipmentsDocument): number {
  return a.clientId.localeCompare(b.clientId) || a.salesOrderNumber.localeCompare(b.salesOrderNumber);
}
