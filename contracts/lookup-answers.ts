// What the four lookups answer, independent of SOAP or JSON. The SOAP builders and the JSON
// route schemas both render these; the MongoDB lookups produce them. Addresses and package items
// are answered as the ERP event contract carries them.
import type { Address, PackageDetails, PackageItem, ShipmentDestinationType } from './erp-event-schema.js';

export type { Address, PackageItem };

export interface OrderStatusDetailView {
  factoryOrderNumber: string;
  statusID: number;
  statusName?: string;
  expectedShipDate?: Date;
  expectedDeliveryDate?: Date;
  responseRequired?: boolean;
  validTimestamp: Date;
}

export interface OrderStatusView {
  purchaseOrderNumber: string;
  details: OrderStatusDetailView[];
}

export interface PackageView extends PackageDetails {
  id?: number;
}

export interface ShipmentLocationView {
  id: number;
  complete: boolean;
  shipFromAddress: Address;
  shipToAddress: Address;
  shipmentDestinationType?: ShipmentDestinationType;
  packages: PackageView[];
}

export interface SalesOrderShipmentView {
  salesOrderNumber: string;
  complete: boolean;
  locations: ShipmentLocationView[];
}

export interface ShipmentNotificationView {
  purchaseOrderNumber: string;
  complete: boolean;
  salesOrders: SalesOrderShipmentView[];
}
