// The state each read model keeps per sales order. Projections fold ERP events into these
// (pure functions, see order-status.ts and shipments.ts); the MongoDB store persists them as
// documents with a few bookkeeping fields of its own (change time, rebuild version).

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

export interface AddressState {
  address1: string;
  address2?: string;
  address3?: string;
  address4?: string;
  city: string;
  region: string;
  postalCode: string;
  country?: string;
}

export interface PackageItemState {
  supplierProductId?: string;
  supplierPartId?: string;
  distributorProductId?: string;
  distributorPartId?: string;
  purchaseOrderLineNumber?: string;
  quantity?: number;
}

export interface PackageState {
  packageId: number;
  trackingNumber: string;
  shipmentDate: Date;
  carrier?: string;
  shipmentMethod?: string;
  shippingAccount?: string;
  shipmentTerms?: string;
  dimUOM?: 'Inches' | 'Feet' | 'mm' | 'cm' | 'Meters';
  length?: number;
  width?: number;
  height?: number;
  weightUOM?: 'Ounces' | 'Pounds' | 'Grams' | 'KG';
  weight?: number;
  items?: PackageItemState[];
}

export interface LocationState {
  locationId: number;
  complete: boolean;
  shipFrom: AddressState;
  shipTo: AddressState;
  shipmentDestinationType?: 'Commercial' | 'Residential' | 'None';
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
