import { statusName } from '../../contracts/status-types.js';
import type { Address, PackageItem } from '../../contracts/erp-event-schema.js';
import type { LocationState, PackageState, ShipmentsState, StatusFields } from '../state.js';
import type { OrderStatusDetailView, PackageView, SalesOrderShipmentView, ShipmentLocationView } from '../../contracts/lookup-answers.js';
import { picked, v1AddressFields, v1ItemFields, v1PackageFields } from '../v1-fields.js';

/**
 * Read-model documents as the 1.0.0 lookups answer them. Absent optional fields stay absent; only
 * contract v1 fields are copied (v1-fields.ts), whatever else the documents hold.
 */
export function toOrderStatusDetail(doc: StatusFields & { salesOrderNumber: string }): OrderStatusDetailView {
  return {
    factoryOrderNumber: doc.salesOrderNumber,
    statusID: doc.statusId,
    statusName: statusName(doc.statusId),
    expectedShipDate: doc.expectedShipDate,
    expectedDeliveryDate: doc.expectedDeliveryDate,
    responseRequired: doc.responseRequired,
    validTimestamp: doc.validTimestamp,
  };
}

const toAddress = (address: Address): Address => picked(address, v1AddressFields);
const toItem = (item: PackageItem): PackageItem => picked(item, v1ItemFields);

export function toPackage(pkg: PackageState): PackageView {
  const { packageId, ...rest } = picked(pkg, v1PackageFields);
  return { id: packageId, ...rest, ...(pkg.items ? { items: pkg.items.map(toItem) } : {}) };
}

function toLocation(location: LocationState): ShipmentLocationView {
  return {
    id: location.locationId,
    complete: location.complete,
    shipFromAddress: toAddress(location.shipFrom),
    shipToAddress: toAddress(location.shipTo),
    shipmentDestinationType: location.shipmentDestinationType,
    packages: location.packages.map(toPackage),
  };
}

export function toSalesOrderShipment(so: ShipmentsState): SalesOrderShipmentView {
  return { salesOrderNumber: so.salesOrderNumber, complete: so.complete, locations: so.locations.map(toLocation) };
}
