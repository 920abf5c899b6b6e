// The state each read model keeps per sales order. Projections fold ERP events into these
// (pure functions, see order-status.ts and shipments.ts); the MongoDB store persists them as
// documents with a few bookkeeping fields of its own (change time, rebuild version).

import type { Address, Contact, PackageDetails, ProductLine, ShipmentDestinationType } from '../contracts/erp-event-schema.js';
import type { StatusId } from '../contracts/status-types.js';
import type { IssueView } from '../contracts/lookup-answers-v2.js';
import type { StatusWord } from '../contracts/v2-vocabulary.js';


// StatusId comes from the contract's statusID table, so the two cannot disagree.
export type { StatusId };

/** What SalesOrderStatusChanged carries (contract v1), as the order-status read model keeps it. */
export interface StatusFields {
  purchaseOrderNumber?: string;
  statusId: StatusId;
  /** Open while statusId is neither 80 (complete) nor 99 (canceled). */
  open: boolean;
  expectedShipDate?: Date;
  expectedDeliveryDate?: Date;
  responseRequired?: boolean;
  /** The ERP's occurredAt of the status event. */
  validTimestamp: Date;
}

/** The order-status read model once a SalesOrderStatusChanged was applied: what 1.0.0 answers. */
export type StatusedOrderState = OrderStatusState & StatusFields;

export const hasStatus = (state: OrderStatusState): state is StatusedOrderState => state.statusId !== undefined;

/** An issue of a sales order: recorded by the ERP (IssueRecorded) or derived from a hold status (oss-osn-2.0.0.md §4.1). */
export interface IssueState extends IssueView {
  source: 'erp' | 'hold';
  /** Sequence of the event that first recorded it: issues are kept and answered in this order. */
  firstSequence: number;
  /** Sequence of the event that closed it; the ERP issue closed first makes room for a 101st. */
  closedSequence?: number;
}

/** A product line of a sales order (SalesOrderLinesRecorded), as the ERP gave it. */
export type ProductLineState = ProductLine;

/** A contact of a sales order (OrderContactsRecorded), as the ERP gave it. */
export type ContactState = Contact;

/**
 * The order-status read model of one sales order. The v1 status fields are absent until the first
 * SalesOrderStatusChanged (an event of a contract v2 type may come first: the document then exists,
 * unanswerable until a status brings its purchase order number). On a stream of contract v1 events
 * the fields added for 2.0.0 are absent apart from those v1's fields give: statusSequence,
 * lastOccurredAt, progressStatusId, expectedShipDay/expectedDeliveryDay, and the derived hold issues.
 */
export interface OrderStatusState extends Partial<StatusFields> {
  clientId: string;
  salesOrderNumber: string;
  /** Sequence of the last event applied to this read model for this sales order (the guard). */
  sequence: number;
  /** Sequence of the last SalesOrderStatusChanged applied: 1.0.0's change time moves only with it. */
  statusSequence?: number;
  /**
   * The last non-hold statusId applied (equal to statusId while not on hold; absent when only holds
   * were applied, which maps to `received`): a hold keeps the 2.0.0 status where the order had got to.
   */
  progressStatusId?: StatusId;
  /** The ERP's 2.0.0 status word, overriding the mapped one (the only source of `shipped`). */
  statusV2?: StatusWord;
  /** The days the ERP wrote (`YYYY-MM-DD`, no zone), for 2.0.0's xsd:date. */
  expectedShipDay?: string;
  expectedDeliveryDay?: string;
  additionalExplanation?: string;
  qualityProofURL?: string;
  /** In the order the ERP's latest SalesOrderLinesRecorded gave. */
  lines?: ProductLineState[];
  /** In the order the ERP's latest OrderContactsRecorded gave. */
  contacts?: ContactState[];
  /** By firstSequence, ERP and derived hold issues interleaved. */
  issues?: IssueState[];
  /** The latest occurredAt applied to this read model, any event type. */
  lastOccurredAt?: Date;
}

/**
 * The sequence of the last status event a state shows: states folded before 2.0.0 lack
 * statusSequence, and there every event applied was a status.
 */
export const statusSequenceOf = (state: Pick<OrderStatusState, 'statusSequence' | 'sequence' | 'statusId'>): number | undefined =>
  state.statusSequence ?? (state.statusId !== undefined ? state.sequence : undefined);

// Addresses, packages and their items are kept as the contract carries them (Address, PackageDetails).

export interface PackageState extends PackageDetails {
  packageId: number;
}

export interface LocationState {
  locationId: number;
  complete: boolean;
  /** Contract v2: the partner collects the goods. */
  customerPickup?: boolean;
  shipFrom: Address;
  shipTo: Address;
  shipmentDestinationType?: ShipmentDestinationType;
  /** Ascending by packageId. */
  packages: PackageState[];
}

export interface ShipmentsState {
  clientId: string;
  salesOrderNumber: string;
  /** Sequence of the last event applied to this read model for this sales order (the guard). */
  sequence: number;
  /** Learnt from SalesOrderStatusChanged; shipment events do not carry it. */
  purchaseOrderNumber?: string;
  /** ShipmentCompleted without locationId was received. */
  completedAsWhole: boolean;
  /** completedAsWhole, or at least one location and every location complete. */
  complete: boolean;
  /** Ascending by locationId. */
  locations: LocationState[];
}
