import type { Filter, Sort } from 'mongodb';
import { inOneBatch, mapBatches, type OrderLookups, type OrderLookupsV2, type OrderStatusV2Query, type ShipmentQuery, type StatusQuery } from '../../../contracts/lookups.js';
import type { OrderStatusView, ShipmentNotificationView } from '../../../contracts/lookup-answers.js';
import type { CappedAnswer, CappedBatches, IssueView, OrderStatusV2View, ShipmentNotificationV2View } from '../../../contracts/lookup-answers-v2.js';
import { purchaseOrderComplete } from '../../../projections/completion.js';
import type { ShipmentsState, StatusFields } from '../../../projections/state.js';
import type { OrderStatusDocument, ReadModelCollections, ShipmentsDocument } from './documents.js';
import { groupByPurchaseOrder, groupKey, type PurchaseOrderGroup } from '../../../projections/lookups/purchase-order-groups.js';
import type { PurchaseOrderMember } from '../../../projections/polling/shipment-news.js';
import { changedSince, changeTimeOverlapMs, type ReadOptions } from './changed-since.js';
import { membersOf, newsSinceInBatches, type Answering } from './shipment-reads.js';
import { toOrderStatusDetail, toSalesOrderShipment } from '../../../projections/lookups/answers-v1.js';
import { v1ShipmentsProjection, v1StatusProjection } from '../../../projections/v1-fields.js';
import { MongoOrderLookupsV2 } from './lookups-v2.js';
import { endedBySignal } from './ended-by-signal.js';


const byPurchaseOrder: Sort = { purchaseOrderNumber: 1, clientId: 1, salesOrderNumber: 1 };
/** queryType 3 reads the visible times too, to narrow each sales order to its news. */
export const shipmentNewsProjection = { ...v1ShipmentsProjection, completeChangedAt: 1, 'locations.completeChangedAt': 1, 'locations.packages.visibleAt': 1 } as const;
/** 1.0.0's queryType 3: its fields, and each sales order's news answered as it is (every answered location, with or without packages). */
export const answeringV1: Answering<ShipmentsState> = { projection: shipmentNewsProjection, answerOf: (_doc, news) => news, packagesOnly: false, countsReferences: false };

/** An answerable sales order as the 1.0.0 lookups read it: its contract v1 fields alone. */
type StatusMember = Pick<OrderStatusDocument, 'clientId' | 'salesOrderNumber' | 'changedAt'> & StatusFields;

/**
 * The lookups of 1.0.0 and (through MongoOrderLookupsV2, see lookups-v2.ts) 2.0.0 over one
 * read-model version. The 1.0.0 ones read and answer contract v1 fields alone (v1-fields.ts), so
 * that their answers over a stream with contract v2 events equal those over it without them.
 */
export class MongoOrderLookups implements OrderLookups, OrderLookupsV2 {
  private readonly v2: MongoOrderLookupsV2;

  constructor(private readonly collections: ReadModelCollections) {
    this.v2 = new MongoOrderLookupsV2(collections);
  }

  orderStatus(clientIds: string[], query: StatusQuery, signal?: AbortSignal): Promise<OrderStatusView[]> {
    return endedBySignal(signal, () => this.readOrderStatus(clientIds, query, signal));
  }

  private async readOrderStatus(clientIds: string[], query: StatusQuery, signal?: AbortSignal): Promise<OrderStatusView[]> {
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
      case 3: {
        const after = new Date((query.statusTimeStamp?.getTime() ?? 0) - changeTimeOverlapMs);
        groups = (await changedSince<StatusMember>(this.collections.orderStatus, base, 'changedAt', after, v1StatusProjection, read)).groups;
        break;
      }
      case 4:
        groups = await this.statusByPurchaseOrder({ ...base, open: true }, read);
        break;
      default:
        return [];
    }
    return groups.map((g) => ({ purchaseOrderNumber: g.purchaseOrderNumber, details: g.members.map(toOrderStatusDetail) }));
  }

  private statusByPurchaseOrder(filter: Filter<OrderStatusDocument>, read: ReadOptions): Promise<PurchaseOrderGroup<StatusMember>[]> {
    return groupByPurchaseOrder(this.collections.orderStatus.find<StatusMember>(filter, { sort: byPurchaseOrder, projection: v1StatusProjection, ...read }));
  }

  shipmentNotificationBatches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<AsyncIterable<ShipmentNotificationView[]>> {
    return endedBySignal(signal, () => this.readShipmentNotifications(clientIds, query, signal));
  }

  private async readShipmentNotifications(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<AsyncIterable<ShipmentNotificationView[]>> {
    const read: ReadOptions = signal ? { signal } : {};
    const base: Filter<ShipmentsDocument> = { clientId: { $in: clientIds }, purchaseOrderNumber: { $exists: true } };
    if (clientIds.length === 0 || ![1, 2, 3].includes(query.queryType)) return inOneBatch(Promise.resolve([]));
    const view = (g: { purchaseOrderNumber: string; members: ShipmentsState[] }, members: PurchaseOrderMember[]): ShipmentNotificationView => ({
      purchaseOrderNumber: g.purchaseOrderNumber,
      complete: purchaseOrderComplete(members),
      salesOrders: g.members.map(toSalesOrderShipment),
    });

    if (query.queryType === 3) {
      const { batches } = await newsSinceInBatches({
        collection: this.collections.shipments,
        clientIds,
        timestamp: query.shipmentDateTimeStamp ?? new Date(0),
        ...answeringV1,
        read,
      });
      return mapBatches(batches, (batch) => batch.map((g) => view(g, g.purchaseOrderMembers)));
    }
    const filter = query.queryType === 1 ? { ...base, purchaseOrderNumber: query.referenceNumber } : { ...base, salesOrderNumber: query.referenceNumber };
    const groups = await groupByPurchaseOrder(withLocations(this.collections.shipments.find<ShipmentsState>(filter, { sort: byPurchaseOrder, projection: v1ShipmentsProjection, ...read })));
    const members = await membersOf(this.collections.shipments, groups, read);
    return inOneBatch(Promise.resolve(groups.map((g) => view(g, members.get(groupKey(g)) ?? []))));
  }

  orderStatusV2(clientIds: string[], query: OrderStatusV2Query, signal?: AbortSignal): Promise<CappedAnswer<OrderStatusV2View>> {
    return endedBySignal(signal, () => this.v2.orderStatusV2(clientIds, query, signal));
  }

  issues(clientIds: string[], issueId: string, signal?: AbortSignal): Promise<IssueView[]> {
    return endedBySignal(signal, () => this.v2.issues(clientIds, issueId, signal));
  }

  shipmentNotificationV2Batches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<CappedBatches<ShipmentNotificationV2View>> {
    return endedBySignal(signal, () => this.v2.shipmentNotificationV2Batches(clientIds, query, signal));
  }

  shipmentNotificationV21Batches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<CappedBatches<ShipmentNotificationV2View>> {
    return endedBySignal(signal, () => this.v2.shipmentNotificationV21Batches(clientIds, query, signal));
  }
}

/** Only sales orders with at least one location are answered. */
async function* withLocations(items: AsyncIterable<ShipmentsState>): AsyncGenerator<ShipmentsState> {
  for await (const so of items) if (so.locations.length > 0) yield so;
}
