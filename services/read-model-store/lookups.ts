import type { Filter, Sort } from 'mongodb';
import type { OrderLookups, ShipmentQuery, StatusQuery } from '../query/ports.js';
import type { OrderStatusView, ShipmentNotificationView } from '../query/views.js';
import type { OrderStatusDocument, ReadModelCollections, ShipmentsDocument } from './documents.js';
import { groupByPurchaseOrder, groupWholePurchaseOrders, type PurchaseOrderGroup } from './purchase-order-groups.js';
import { toOrderStatusDetail, toSalesOrderShipment, withPackagesShippedSince } from './views.js';

/**
 * Change times are stamped by the database server; a poll's statusTimeStamp comes from the
 * partner's clock. The overlap absorbs clock skew between them: a change may be answered twice
 * on consecutive polls, never missed.
 */
export const changeTimeOverlapMs = 5_000;

/** Shipments queryType 3 reads shipment dates a window at a time; the first window spans this. */
const firstShipmentWindowMs = 24 * 60 * 60 * 1_000;
/** A window holding more new sales orders than this is read again at half its width. */
const maxSalesOrdersPerWindow = 5_000;
/** The latest time a JavaScript Date holds. */
const latestDateMs = 8.64e15;

const byPurchaseOrder: Sort = { purchaseOrderNumber: 1, clientId: 1, salesOrderNumber: 1 };
const statusProjection = { _id: 0, sequence: 0, open: 0 } as const;
const shipmentsProjection = { _id: 0, sequence: 0, shipmentDates: 0 } as const;

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
  private statusChangedSince(base: Filter<OrderStatusDocument>, after: Date): Promise<PurchaseOrderGroup<StatusMember>[]> {
    const changedAt = { $gt: after };
    const byChangeTime = (a: StatusMember, b: StatusMember) => a.changedAt.getTime() - b.changedAt.getTime() || a.salesOrderNumber.localeCompare(b.salesOrderNumber);
    return groupWholePurchaseOrders(
      this.collections.orderStatus.find<StatusMember>({ ...base, changedAt }, { sort: { changedAt: 1, _id: 1 }, projection: statusProjection }),
      (kept) => this.collections.orderStatus.find<StatusMember>({ ...ofPurchaseOrders(kept), changedAt }, { projection: statusProjection }),
      byChangeTime,
    );
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
   * Packages shipped at or after `since`, ascending by each sales order's earliest such package
   * (a poller can move forward), each purchase order whole at its earliest one.
   */
  private shippedSince(base: Filter<ShipmentsDocument>, since: Date): Promise<PurchaseOrderGroup<ShipmentsDocument>[]> {
    return groupWholePurchaseOrders(
      this.shipmentsInDateOrder(base, since),
      (kept) =>
        withLocations(
          mapAsync(this.collections.shipments.find<ShipmentsDocument>({ ...ofPurchaseOrders(kept), shipmentDates: { $elemMatch: { $gte: since } } }, { projection: shipmentsProjection }), (so) =>
            withPackagesShippedSince(so, since),
          ),
        ),
      (a, b) => earliestShipment(a) - earliestShipment(b) || compareKeys(a, b),
    );
  }

  /**
   * The sales orders with a package shipped at or after `since`, streamed ascending by the
   * earliest such package, their packages narrowed to those. A sales order's place depends on
   * `since`, so no stored order serves it: the dates are read a window of time at a time (each
   * through the shipment-date index), and only a window's new sales orders are held and sorted.
   */
  private async *shipmentsInDateOrder(base: Filter<ShipmentsDocument>, since: Date): AsyncGenerator<ShipmentsDocument> {
    let start = since.getTime();
    let width = firstShipmentWindowMs;
    for (;;) {
      const end = Math.min(start + width, latestDateMs + 1);
      const found = await this.firstShippedInWindow(base, since, start, end);
      if (found === 'too many') {
        width = Math.max(1, Math.floor(width / 2));
        continue;
      }
      yield* found;
      if (found.length === 0 && !(await this.collections.shipments.findOne({ ...base, shipmentDates: { $elemMatch: { $gte: new Date(end) } } }, { projection: { _id: 1 } }))) return;
      if (end > latestDateMs) return;
      start = end;
      width = found.length * 4 < maxSalesOrdersPerWindow ? width * 2 : width;
    }
  }

  /**
   * The sales orders whose earliest package shipped since `since` falls in [start, end), in answer
   * order, or 'too many' when they would be more than maxSalesOrdersPerWindow.
   */
  private async firstShippedInWindow(base: Filter<ShipmentsDocument>, since: Date, start: number, end: number): Promise<ShipmentsDocument[] | 'too many'> {
    const window = this.collections.shipments.find<ShipmentsDocument>(
      { ...base, shipmentDates: { $elemMatch: { $gte: new Date(start), $lt: new Date(end) } } },
      { projection: shipmentsProjection },
    );
    const first: ShipmentsDocument[] = [];
    for await (const so of window) {
      const narrowed = withPackagesShippedSince(so, since);
      const earliest = earliestShipment(narrowed);
      // One shipped earlier since `since` was answered in an earlier window.
      if (earliest < start || earliest >= end || narrowed.locations.length === 0) continue;
      if (first.length >= maxSalesOrdersPerWindow && end - start > 1) return 'too many';
      first.push(narrowed);
    }
    return first.sort((a, b) => earliestShipment(a) - earliestShipment(b) || compareKeys(a, b));
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

/** A filter for the sales orders of these purchase orders (and of other combinations of their clients and numbers, to drop). */
function ofPurchaseOrders(groups: { clientId: string; purchaseOrderNumber: string }[]) {
  return {
    clientId: { $in: [...new Set(groups.map((g) => g.clientId))] },
    purchaseOrderNumber: { $in: [...new Set(groups.map((g) => g.purchaseOrderNumber))] },
  };
}

async function* mapAsync<T, U>(items: AsyncIterable<T>, map: (item: T) => U): AsyncGenerator<U> {
  for await (const item of items) yield map(item);
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
