import type {
  AddressV2View,
  ItemV2View,
  OrderStatusDetailV2View,
  PackageV2View,
  ProductView,
  SalesOrderShipmentV2View,
  ShipmentV2View,
} from '../../contracts/lookup-answers-v2.js';
import type { IssueDetailType, StatusWord } from '../../contracts/v2-vocabulary.js';
import type { LocationState, PackageState, ProductLineState, ShipmentsState, StatusedOrderState } from '../state.js';
import { picked } from '../v1-fields.js';
import { detailIssueCategory, issuesAsked } from './issues-v2.js';
import { statusWord } from './status-v2.js';

// Read-model documents as the 2.0.0 lookups answer them (oss-osn-2.0.0.md §4.1-§4.3, §10.2; the
// status by status-v2.ts, the issues by issues-v2.ts). Values are as stored: fitting them to the
// XSDs is the renderers' job (§4.4).

const toProduct = (line: ProductLineState, detailStatus: StatusWord): ProductView => ({ ...line, status: line.status ?? detailStatus });

/** An order-status document (its fields the 2.0.0 lookups read) as a 2.0.0 OrderStatusDetail. */
export function toOrderStatusDetailV2(doc: StatusedOrderState, asked: { returnIssueDetailType: IssueDetailType; returnProductDetail: boolean }): OrderStatusDetailV2View {
  const status = statusWord(doc);
  const issues = doc.issues ?? [];
  const issueCategory = detailIssueCategory(issues);
  return {
    salesOrderNumber: doc.salesOrderNumber,
    status,
    ...(issueCategory !== undefined ? { issueCategory } : {}),
    ...(doc.expectedShipDay !== undefined ? { expectedShipDate: doc.expectedShipDay } : {}),
    ...(doc.expectedDeliveryDay !== undefined ? { expectedDeliveryDate: doc.expectedDeliveryDay } : {}),
    ...picked(doc, ['additionalExplanation', 'qualityProofURL'] as const),
    contacts: doc.contacts ?? [],
    ...(asked.returnProductDetail ? { products: (doc.lines ?? []).map((line) => toProduct(line, status)) } : {}),
    issues: issuesAsked(issues, asked.returnIssueDetailType),
    validTimestamp: doc.validTimestamp,
  };
}

// Shipments: the stored address, package and item hold the contract v2 fields in place beside v1's.

const addressFields = [
  'attentionTo',
  'companyName',
  'address1',
  'address2',
  'address3',
  'address4',
  'city',
  'region',
  'regionV2',
  'postalCode',
  'country',
  'email',
  'phone',
] as const satisfies readonly (keyof AddressV2View)[];
const itemFields = ['supplierProductId', 'supplierPartId', 'distributorProductId', 'distributorPartId', 'purchaseOrderLineNumber', 'quantity', 'uom'] as const satisfies readonly (keyof ItemV2View)[];
const packageFields = [
  'trackingNumber',
  'shipmentDate',
  'carrier',
  'carrierService',
  'shipmentMethod',
  'shippingAccount',
  'shipmentTerms',
  'dimUOM',
  'length',
  'width',
  'height',
  'weightUOM',
  'weight',
  'preProductionProof',
] as const satisfies readonly (keyof PackageV2View)[];

const toAddressV2 = (address: AddressV2View): AddressV2View => picked(address, addressFields);

/** A package without the store's bookkeeping beside it (its visible times); its shipReferences for 2.1.0 (2.0.0's renderers pick their fields by name). */
function toPackageV2(pkg: PackageState): PackageV2View {
  const { items, shipReferences } = pkg;
  return {
    id: pkg.packageId,
    ...picked(pkg, packageFields),
    ...(items ? { items: items.map((item) => picked(item, itemFields)) } : {}),
    ...(shipReferences ? { shipReferences: [...shipReferences] } : {}),
  };
}

/** A location as a 2.0.0 Shipment; undefined for one without packages (2.0.0's PackageArray needs one). */
function toShipmentV2(location: LocationState): ShipmentV2View | undefined {
  if (location.packages.length === 0) return undefined;
  return {
    id: location.locationId,
    complete: location.complete,
    ...(location.customerPickup !== undefined ? { customerPickup: location.customerPickup } : {}),
    shipFromAddress: toAddressV2(location.shipFrom),
    shipToAddress: toAddressV2(location.shipTo),
    ...(location.shipmentDestinationType !== undefined ? { shipmentDestinationType: location.shipmentDestinationType } : {}),
    packages: location.packages.map(toPackageV2),
  };
}

/** A sales order with its locations that have packages; undefined when it has none. */
export function toSalesOrderShipmentV2(so: ShipmentsState): SalesOrderShipmentV2View | undefined {
  const shipments = so.locations.flatMap((location) => toShipmentV2(location) ?? []);
  return shipments.length > 0 ? { salesOrderNumber: so.salesOrderNumber, complete: so.complete, shipments } : undefined;
}
