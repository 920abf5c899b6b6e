// What the four lookups answer, independent of SOAP or JSON. The SOAP builders and the JSON
// route schemas both render these; the MongoDB lookups produce them.

export interface Address {
  address1: string;
  address2?: string;
  address3?: string;
  address4?: string;
  city: string;
  region: string;
  postalCode: string;
  country?: string;
}

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

export interface PackageItemView {
  supplierProductId?: string;
  supplierPartId?: string;
  distributorProductId?: string;
  distributorPartId?: string;
  purchaseOrderLineNumber?: string;
  quantity?: number;
}

export interface PackageView {
  id?: number;
  trackingNumber: string;
  shipmentDate: Date;
  dimUOM?: 'Inches' | 'Feet' | 'mm' | 'cm' | 'Meters';
  length?: number;
  width?: number;
  height?: number;
  weightUOM?: 'Ounces' | 'Pounds' | 'Grams' | 'KG';
  weight?: number;
  carrier?: string;
  shipmentMethod?: string;
  shippingAccount?: string;
  shipmentTerms?: string;
  items?: PackageItemView[];
}

export interface ShipmentLocationView {
  id: number;
  complete: boolean;
  shipFromAddress: Address;
  shipToAddress: Address;
  shipmentDestinationType?: 'Commercial' | 'Residential' | 'None';
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
