import type { Filter, Sort } from 'mongodb';
import type { OrderLookups, ShipmentQuery, StatusQuery } from '../query/ports.js';
import type { OrderStatusView, ShipmentNotificationView } from '../query/views.js';
import type { OrderStatusDocument, ReadModelCollections, ShipmentsDocument } from './documents.js';
import { groupByPurchaseOrder } from './purchase-order-groups.js';
import { toOrderStatusDetail, toSalesOrderShipment, withPackagesShippedSince } from './views.js';

/**
 * Change times are stamped by the database server; a poll's statusTimeStamp comes from the
 * partner's clock. The overlap absorbs clock skew between them: a change may be answered twice
 * on consecutive polls, never missed.
 */
export const changeTimeOverlapMs = 5_000;

const byPurchaseOrder: Sort = { purchaseOrderNumber: 1, clientId: 1, salesOrderNumber: 1 };

export class MongoOrderLookups implements OrderLookups {
  constructor(private readonly collections: ReadModelCollections) {}

  async orderStatus(clientIds: string[], query: StatusQuery): Promise<OrderStatusView[]> {
    if (clientIds.length === 0) return [];
    const base: Filter<OrderStatusDocument> = { clientId: { $in: clientIds }, purchaseOrderNumber: { $exists: true } };
    let filter: Filter<OrderStatusDocument>;
    let sort: Sort = byPurchaseOrder;
    switch (query.queryType) {
      case 1:
        filter = { ...base, purchaseOrderNumber: query.referenceNumber };
        break;
      case 2:
        filter = { ...base, salesOrderNumber: query.referenceNumber };
        break;
      case 3:
        filter = { ...base, changedAt: { $gt: new Date((query.statusTimeStamp?.getTime() ?? 0) - changeTimeOverlapMs) } };
        sort = { changedAt: 1, _id: 1 };
        break;
      case 4:
        filter = { ...base, open: true };
        break;
      default:
        return [];
    }
    const cursor = this.collections.orderStatus.find(filter, { sort, projection: { _id: 0, sequence: 0, open: 0 } });
    const groups = await groupByPurchaseOrder(cursor);
    return groups.map((g) => ({ purchaseOrderNumber: g.purchaseOrderNumber, details: g.members.map(toOrderStatusDetail) }));
  }

  async shipmentNotifications(clientIds: string[], query: ShipmentQuery): Promise<ShipmentNotificationView[]> {
    const base: Filter<ShipmentsDocument> = { clientId: { $in: clientIds }, purchaseOrderNumber: { $exists: true } };
    if (clientIds.length === 0 || ![1, 2, 3].includes(query.queryType)) return [];
    const projection = { _id: 0, sequence: 0, shipmentDates: 0 };

    let salesOrders: ShipmentsDocument[];
    if (query.queryType === 3) {
      const since = query.shipmentDateTimeStamp ?? new Date(0);
      const found = await this.collections.shipments.find({ ...base, shipmentDates: { $gte: since } }, { projection }).toArray();
      // Ascending by the earliest package shipped since the timestamp, so a poller can move forward.
      salesOrders = found
        .map((so) => withPackagesShippedSince(so, since))
        .filter((so) => so.locations.length > 0)
        .sort((a, b) => earliestShipment(a) - earliestShipment(b) || compareKeys(a, b));
    } else {
      const filter = query.queryType === 1 ? { ...base, purchaseOrderNumber: query.referenceNumber } : { ...base, salesOrderNumber: query.referenceNumber };
      salesOrders = (await this.collections.shipments.find(filter, { sort: byPurchaseOrder, projection }).toArray()).filter(
        (so) => so.locations.length > 0,
      );
    }

    const groups = await groupByPurchaseOrder(salesOrders);
    const completion = await this.purchaseOrderCompletion(groups);
    return groups.map((g) => ({
      purchaseOrderNumber: g.purchaseOrderNumber,
      complete: completion.get(JSON.stringify([g.clientId, g.purchaseOrderNumber])) ?? false,
      salesOrders: g.members.map(toSalesOrderShipment),
    }));
  }

  /** A purchase order is complete when every sales order of its client carrying its number is, answered or not. */
  private async purchaseOrderCompletion(groups: { clientId: string; purchaseOrderNumber: string }[]): Promise<Map<string, boolean>> {
    const completion = new Map<string, boolean>();
    if (groups.length === 0) return completion;
    const wanted = new Set(groups.map((g) => JSON.stringify([g.clientId, g.purchaseOrderNumber])));
    const siblings = this.collections.shipments.find(
      {
        clientId: { $in: [...new Set(groups.map((g) => g.clientId))] },
        purchaseOrderNumber: { $in: [...new Set(groups.map((g) => g.purchaseOrderNumber))] },
      },
      { projection: { _id: 0, clientId: 1, purchaseOrderNumber: 1, complete: 1 } },
    );
    for await (const so of siblings) {
      const key = JSON.stringify([so.clientId, so.purchaseOrderNumber]);
      if (wanted.has(key)) completion.set(key, (completion.get(key) ?? true) && so.complete);
    }
    return completion;
  }
}

function earliestShipment(so: ShipmentsDocument): number {
  return Math.min(...so.locations.flatMap((l) => l.packages.map((p) => p.shipmentDate.getTime())));
}

function compareKeys(a: ShipmentsDocument, b: ShipmentsDocument): number {
  return a.clientId.localeCompare(b.clientId) || a.salesOrderNumber.localeCompare(b.salesOrderNumber);
}
