// The 2.0.0 lookups over read models folded in memory, for tests of what the answers hold (as
// folded-lookups.ts for 1.0.0): built with the store's own mappings from state to view
// (projections/lookups/answers-v2.ts), choosing sales orders by each query as the MongoDB lookups do in
// outline (which ones exactly, in what order and under the cap, is tested against MongoDB beside
// them). Every sales order counts as updated, whatever lastUpdate's time.
import type { CappedAnswer, CappedBatches, IssueView, OrderStatusV2View, ShipmentNotificationV2View } from '../../contracts/lookup-answers-v2.js';
import { cappedInOneBatch, type OrderLookupsV2, type OrderStatusV2Query, type ShipmentQuery } from '../../contracts/lookups.js';
import { isOpenIssue } from '../../contracts/v2-vocabulary.js';
import { purchaseOrderComplete } from '../../projections/completion.js';
import type { FoldResult } from '../../projections/fold.js';
import { hasStatus, type StatusedOrderState } from '../../projections/state.js';
import { toOrderStatusDetailV2, toSalesOrderShipmentV2 } from '../../projections/lookups/answers-v2.js';
import { toIssueView } from '../../projections/lookups/issues-v2.js';
import { groupByPurchaseOrder, groupKey } from '../../projections/lookups/purchase-order-groups.js';
import { answerableByPurchaseOrder } from './folded-lookups.js';

type ReadModels = Pick<FoldResult, 'orderStatus' | 'shipments'>;

const none = { orders: [], more: false };

export class FoldedLookupsV2 implements OrderLookupsV2 {
  readModels: ReadModels = { orderStatus: new Map(), shipments: new Map() };

  async orderStatusV2(clientIds: string[], query: OrderStatusV2Query): Promise<CappedAnswer<OrderStatusV2View>> {
    const chosen = (s: StatusedOrderState): boolean => {
      switch (query.queryType) {
        case 'poSearch':
          return s.purchaseOrderNumber === query.referenceNumber;
        case 'soSearch':
          return s.salesOrderNumber === query.referenceNumber;
        case 'allOpen':
          return s.open;
        case 'allOpenIssues':
          return (s.issues ?? []).some((issue) => isOpenIssue(issue.issueStatus));
        case 'lastUpdate':
          return true;
      }
    };
    const states = answerableByPurchaseOrder([...this.readModels.orderStatus.values()].filter(hasStatus), clientIds).filter(chosen);
    const groups = await groupByPurchaseOrder(states);
    return { orders: groups.map((g) => ({ purchaseOrderNumber: g.purchaseOrderNumber, details: g.members.map((s) => toOrderStatusDetailV2(s, query)) })), more: false };
  }

  async issues(clientIds: string[], issueId: string): Promise<IssueView[]> {
    return answerableByPurchaseOrder([...this.readModels.orderStatus.values()].filter(hasStatus), clientIds)
      .sort((a, b) => a.clientId.localeCompare(b.clientId) || a.salesOrderNumber.localeCompare(b.salesOrderNumber))
      .flatMap((s) => (s.issues ?? []).filter((issue) => issue.issueId === issueId).map(toIssueView));
  }

  async shipmentNotificationV2Batches(clientIds: string[], query: ShipmentQuery): Promise<CappedBatches<ShipmentNotificationV2View>> {
    return cappedInOneBatch(await this.shipmentNotificationsV2(clientIds, query));
  }

  /** 2.1.0's: the same views (with their shipReferences), every sales order counting as news to queryType 3 here too. */
  shipmentNotificationV21Batches(clientIds: string[], query: ShipmentQuery): Promise<CappedBatches<ShipmentNotificationV2View>> {
    return this.shipmentNotificationV2Batches(clientIds, query);
  }

  /** What shipmentNotificationV2Batches answers, read whole. */
  private async shipmentNotificationsV2(clientIds: string[], query: ShipmentQuery): Promise<CappedAnswer<ShipmentNotificationV2View>> {
    if (![1, 2, 3].includes(query.queryType)) return none;
    const all = answerableByPurchaseOrder(this.readModels.shipments.values(), clientIds);
    const chosen = all.filter((so) => query.queryType === 3 || (query.queryType === 1 ? so.purchaseOrderNumber : so.salesOrderNumber) === query.referenceNumber);
    const groups = await groupByPurchaseOrder(chosen.flatMap((so) => {
      const view = toSalesOrderShipmentV2(so);
      return view ? [{ clientId: so.clientId, purchaseOrderNumber: so.purchaseOrderNumber, view }] : [];
    }));
    // A purchase order is complete when every sales order of its client carrying its number is, answered or not.
    const members = (key: string) => all.filter((so) => groupKey(so) === key);
    return {
      orders: groups.map((g) => ({ purchaseOrderNumber: g.purchaseOrderNumber, complete: purchaseOrderComplete(members(groupKey(g))), salesOrders: g.members.map((m) => m.view) })),
      more: false,
    };
  }
}
