import { statusName } from '../../../contracts/status-types.js';
import type { LocationState, PackageState, ShipmentsState, StatusFields } from '../../../projections/state.js';
import type { OrderStatusDetailView, PackageView, SalesOrderShipmentView, ShipmentLocationView } from '../../../contracts/lookup-answers.js';

/** Read-model documents as the lookups answer them. Absent optional fields stay absent. */
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

function toPackage({ packageId, ...rest }: PackageState): PackageView {
  return { id: packageId, ...rest };
}

function toLocation(location: LocationState): ShipmentLocationView {
  return {
    id: location.locationId,
    complete: location.complete,
    shipFromAddress: location.shipFrom,
    shipToAddress: location.shipTo,
    shipmentDestinationType: location.shipmentDestinationType,
    packages: location.packages.map(toPackage),
  };
}

export function toSalesOrderShipment(so: ShipmentsState): SalesOrderShipmentView {
  return { salesOrderNumber: so.salesOrderNumber, complete: so.complete, locations: so.locations.map(toLocation) };
}
