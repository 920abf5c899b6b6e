import type { Filter, Sort } from 'mongodb';
import { cappedInOneBatch, mapBatches, type OrderLookupsV2, type OrderStatusV2Query, type ShipmentQuery } from '../../../contracts/lookups.js';
import type { CappedAnswer, CappedBatches, IssueView, OrderStatusV2View, SalesOrderShipmentV2View, ShipmentNotificationV2View } from '../../../contracts/lookup-answers-v2.js';
import { purchaseOrderComplete } from '../../../projections/completion.js';
import type { IssueState, ShipmentsState, StatusedOrderState } from '../../../projections/state.js';
import { changedSince, changeTimeOverlapMs, type ReadOptions } from './changed-since.js';
import { shipmentsStateProjection, type OrderStatusDocument, type ReadModelCollections, type ShipmentsDocument } from './documents.js';
import { toOrderStatusDetailV2, toSalesOrderShipmentV2 } from '../../../projections/lookups/answers-v2.js';
import { toIssueView } from '../../../projections/lookups/issues-v2.js';
import { cappedGroups, groupKey, type PurchaseOrderGroup } from '../../../projections/lookups/purchase-order-groups.js';
import { membersOf, newsSinceInBatches, type Answering } from './shipment-reads.js';
import { v2LocationsOfNews, type PurchaseOrderMember, type ShipmentNewsSince } from '../../../projections/polling/shipment-news.js';

// The 2.0.0 lookups (oss-osn-2.0.0.md §2, §4, §7) over the read models the 1.0.0 ones read, with
// their building blocks: grouping by purchase order, the 5,000 cap, queryType 3's algorithm (on
// `updatedAt` for lastUpdate) and its overlap. Each reads through an index (documents.ts).

const byPurchaseOrder: Sort = { purchaseOrderNumber: 1, clientId: 1, salesOrderNumber: 1 };

/** What a 2.0.0 OrderStatusDetail is made of, and the change time lastUpdate orders by. */
const statusFields = {
  _id: 0,
  clientId: 1,
  salesOrderNumber: 1,
  purchaseOrderNumber: 1,
  statusId: 1,
  progressStatusId: 1,
  statusV2: 1,
  expectedShipDay: 1,
  expectedDeliveryDay: 1,
  additionalExplanation: 1,
  qualityProofURL: 1,
  contacts: 1,
  issues: 1,
  validTimestamp: 1,
  updatedAt: 1,
} as const;
const statusWithLines = { ...statusFields, lines: 1 } as const;

/** A shipments document less what no 2.0.0 answer holds: the store's fields (documents.ts) and the guard's. */
const shipmentsFields = { ...shipmentsStateProjection, sequence: 0, completedAsWhole: 0 } as const;
/** queryType 3 keeps the visible times it narrows by (what its reads of whole documents read). */
const {
  completeChangedAt: _soFlag,
  purchaseOrderSetAt: _underPurchaseOrder,
  'locations.completeChangedAt': _locationFlag,
  'locations.packages.visibleAt': _visible,
  ...withoutVisibleTimes
} = shipmentsStateProjection;
export const shipmentNewsFieldsV2 = { ...withoutVisibleTimes, sequence: 0 } as const;
/** 2.1.0's queryType 3 keeps its packages' references times too (answeringV21). */
const { 'locations.packages.referencesChangedAt': _references, ...withoutAnyNewsTime } = shipmentNewsFieldsV2;
export const shipmentNewsFieldsV21 = withoutAnyNewsTime;

/** 2.0.0 answers only what has a package: a location without one is left out, so is a sales order with none. */
const hasPackage = { 'locations.packages.0': { $exists: true } } as const;

type StatusMember = StatusedOrderState & Pick<OrderStatusDocument, 'updatedAt'>;

export class MongoOrderLookupsV2 implements OrderLookupsV2 {
  constructor(private readonly collections: ReadModelCollections) {}

  async orderStatusV2(clientIds: string[], query: OrderStatusV2Query, signal?: AbortSignal): Promise<CappedAnswer<OrderStatusV2View>> {
    const read: ReadOptions = signal ? { signal } : {};
    const none = { orders: [], more: false };
    if (clientIds.length === 0) return none;
    const base: Filter<OrderStatusDocument> = { clientId: { $in: clientIds }, purchaseOrderNumber: { $exists: true } };
    const projection = query.returnProductDetail ? statusWithLines : statusFields;
    const byNumber = (filter: Filter<OrderStatusDocument>) =>
      cappedGroups(this.collections.orderStatus.find<StatusMember>({ ...base, ...filter }, { sort: byPurchaseOrder, projection, ...read }));
    let answer: { groups: PurchaseOrderGroup<StatusMember>[]; more: boolean };
    switch (query.queryType) {
      case 'poSearch':
        if (query.referenceNumber === undefined) return none;
        answer = await byNumber({ purchaseOrderNumber: query.referenceNumber });
        break;
      case 'soSearch':
        if (query.referenceNumber === undefined) return none;
        answer = await byNumber({ salesOrderNumber: query.referenceNumber });
        break;
      case 'allOpen':
        answer = await byNumber({ open: true });
        break;
      case 'allOpenIssues':
        answer = await byNumber({ openIssue: true });
        break;
      case 'lastUpdate': {
        const after = new Date((query.statusTimeStamp?.getTime() ?? 0) - changeTimeOverlapMs);
        answer = await changedSince<StatusMember>(this.collections.orderStatus, base, 'updatedAt', after, projection, read);
        break;
      }
      default:
        return none;
    }
    return {
      orders: answer.groups.map((g) => ({ purchaseOrderNumber: g.purchaseOrderNumber, details: g.members.map((doc) => toOrderStatusDetailV2(doc, query)) })),
      more: answer.more,
    };
  }

  /** getIssue (§7): every stored issue with this id, derived ones and hidden ones included, on an answerable sales order of the clients. */
  async issues(clientIds: string[], issueId: string, signal?: AbortSignal): Promise<IssueView[]> {
    if (clientIds.length === 0) return [];
    const found = await this.collections.orderStatus
      .find<{ clientId: string; salesOrderNumber: string; issues?: IssueState[] }>(
        { clientId: { $in: clientIds }, purchaseOrderNumber: { $exists: true }, issueIds: issueId },
        { projection: { _id: 0, clientId: 1, salesOrderNumber: 1, issues: 1 }, ...(signal ? { signal } : {}) },
      )
      .toArray();
    // Several only where the ERP broke the id's uniqueness: in a stable order.
    found.sort((a, b) => a.clientId.localeCompare(b.clientId) || a.salesOrderNumber.localeCompare(b.salesOrderNumber));
    return found.flatMap((so) => (so.issues ?? []).filter((issue) => issue.issueId === issueId).map(toIssueView));
  }

  /**
   * OSN 2.0.0: queryType 1, 2, 3 as 1.0.0's (MongoOrderLookups.shipmentNotificationBatches), sent as
   * they are read alike, answering only locations with packages (queryType 3: see v2LocationsOfNews).
   */
  shipmentNotificationV2Batches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<CappedBatches<ShipmentNotificationV2View>> {
    return this.shipmentNotifications(clientIds, query, answeringV2, signal);
  }

  /**
   * OSN 2.1.0: as 2.0.0's (shipmentNotificationV2Batches), its packages with their shipReferences;
   * queryType 3 also answers a package whose shipReferences changed since (answeringV21,
   * docs/design/queries.md), which 1.0.0 and 2.0.0 do not show.
   */
  shipmentNotificationV21Batches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<CappedBatches<ShipmentNotificationV2View>> {
    return this.shipmentNotifications(clientIds, query, answeringV21, signal);
  }

  /** queryType 1 and 2 of 2.0.0 and 2.1.0 alike; queryType 3 by `answering`, the version's news rule. */
  private async shipmentNotifications(
    clientIds: string[],
    query: ShipmentQuery,
    answering: Answering<SalesOrderShipmentV2View>,
    signal?: AbortSignal,
  ): Promise<CappedBatches<ShipmentNotificationV2View>> {
    const read: ReadOptions = signal ? { signal } : {};
    const none = cappedInOneBatch<ShipmentNotificationV2View>({ orders: [], more: false });
    if (clientIds.length === 0 || ![1, 2, 3].includes(query.queryType)) return none;
    if (query.queryType === 3) {
      // Chosen by 1.0.0's news rule (a purchase order's flag may change through a sales order without packages); planned, ordered and answered by the locations with packages only (answeringV2).
      const { more, batches } = await newsSinceInBatches({
        collection: this.collections.shipments,
        clientIds,
        timestamp: query.shipmentDateTimeStamp ?? new Date(0),
        ...answering,
        read,
      });
      return { more, batches: mapBatches(batches, (batch) => answered(batch, (g) => g.purchaseOrderMembers)) };
    }
    if (query.referenceNumber === undefined) return none;
    const base: Filter<ShipmentsDocument> = { clientId: { $in: clientIds }, purchaseOrderNumber: { $exists: true } };
    const filter = { ...base, ...hasPackage, ...(query.queryType === 1 ? { purchaseOrderNumber: query.referenceNumber } : { salesOrderNumber: query.referenceNumber }) };
    const found = await cappedGroups(this.collections.shipments.find<ShipmentsState>(filter, { sort: byPurchaseOrder, projection: shipmentsFields, ...read }));
    const groups = found.groups.map((g) => ({ ...g, members: g.members.flatMap((so) => toSalesOrderShipmentV2(so) ?? []) }));
    const members = await membersOf(this.collections.shipments, groups, read);
    return cappedInOneBatch({ orders: answered(groups, (g) => members.get(groupKey(g)) ?? []), more: found.more });
  }
}

/** The notifications of these purchase orders (those with nothing answered left out), complete by all their sales orders (`allMembers`). */
function answered<G extends PurchaseOrderGroup<SalesOrderShipmentV2View>>(groups: G[], allMembers: (g: G) => PurchaseOrderMember[]): ShipmentNotificationV2View[] {
  return groups.filter((g) => g.members.length > 0).map((g) => ({ purchaseOrderNumber: g.purchaseOrderNumber, complete: purchaseOrderComplete(allMembers(g)), salesOrders: g.members }));
}

/** 2.0.0's queryType 3: inside each location that 1.0.0 answers, what v2LocationsOfNews says; one without packages is left out. */
export const newsOfV2 = (doc: ShipmentsDocument, news: ShipmentsState, since: ShipmentNewsSince): SalesOrderShipmentV2View | undefined =>
  toSalesOrderShipmentV2(v2LocationsOfNews(doc, news, since));

/** 2.0.0's queryType 3: its fields, what it answers of a sales order's news, and that it answers no location without a package. */
export const answeringV2: Answering<SalesOrderShipmentV2View> = { projection: shipmentNewsFieldsV2, answerOf: newsOfV2, packagesOnly: true, countsReferences: false };

/** 2.1.0's queryType 3: 2.0.0's, a package whose shipReferences changed since news too (its references time read). */
export const answeringV21: Answering<SalesOrderShipmentV2View> = { projection: shipmentNewsFieldsV21, answerOf: newsOfV2, packagesOnly: true, countsReferences: true };
