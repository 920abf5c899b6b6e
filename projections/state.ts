// The state each read model keeps per sales order. Projections fold ERP events into these
// (pure functions, see order-status.ts and shipments.ts); the MongoDB store persists them as
// documents with a few bookkeeping fields of its own (change time, rebuild version).

import type { Address, PackageDetails, ShipmentDestinationType } from '../contracts/erp-event-schema.js';
import type { StatusId } from '../contracts/status-types.js';

// StatusId comes from the contract's statusID table, so the two cannot disagree.
export type { StatusId };

export interface OrderStatusState {
  clientId: string;
  salesOrderNumber: string;
  /** Sequence of the last event applied to this read model for this sales order (the guard). */
  sequence: number;
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

// Addresses, packages and their items are kept as the contract carries them (Address, PackageDetails).

export interface PackageState extends PackageDetails {
  packageId: number;
}

export interface LocationState {
  locationId: number;
  complete: boolean;
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
