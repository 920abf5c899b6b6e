import type {
  AddressV2View,
  IssueView,
  ItemV2View,
  OrderStatusDetailV2View,
  PackageV2View,
  ProductView,
  SalesOrderShipmentV2View,
  ShipmentV2View,
} from '../../../contracts/lookup-answers-v2.js';
import type { StatusId } from '../../../contracts/status-types.js';
import { isOpenIssue, type IssueCategory, type IssueDetailType, type StatusWord } from '../../../contracts/v2-vocabulary.js';
import type { IssueState, LocationState, PackageState, ProductLineState, ShipmentsState, StatusedOrderState } from '../../../projections/state.js';
import { picked } from '../../../projections/v1-fields.js';

// Read-model documents as the 2.0.0 lookups answer them (oss-osn-2.0.0.md §4.1-§4.3, §10.2). Values
// are as stored: fitting them to the XSDs is the renderers' job (§4.4).

/** §4.1: the 2.0.0 status word of each statusId that is not a hold. */
const statusWordOf: Partial<Record<StatusId, StatusWord>> = {
  10: 'received',
  20: 'confirmed',
  30: 'preproduction',
  60: 'inProduction',
  70: 'inStorage',
  75: 'partiallyShipped',
  80: 'complete',
  99: 'canceled',
};

/**
 * The detail's status: the ERP's 2.0.0 word where it gave one (the only source of `shipped`),
 * else that of its statusId; a hold (11, 40-44) answers the progress the order had made before
 * it (the last non-hold statusId applied), `received` when it made none.
 */
function statusWord(state: Pick<StatusedOrderState, 'statusId' | 'statusV2' | 'progressStatusId'>): StatusWord {
  return state.statusV2 ?? statusWordOf[state.statusId] ?? (state.progressStatusId !== undefined ? statusWordOf[state.progressStatusId] : undefined) ?? 'received';
}

const issueViewFields = [
  'issueId',
  'issueStatus',
  'issueCategory',
  'issueName',
  'urgentResponseRequired',
  'issueDescription',
  'responseRequiredBy',
  'issueResolutionURL',
  'productId',
  'partId',
] as const satisfies readonly (keyof IssueView)[];

/** An issue as answered, without the read model's bookkeeping. */
export const toIssueView = (issue: IssueState): IssueView => picked(issue, issueViewFields);

const open = (issue: IssueState) => isOpenIssue(issue.issueStatus);

/**
 * §10.2: the issues an IssueArray may list, in the order kept: an open derived hold issue is left
 * out while an open ERP issue of its category exists (closed derived ones are always listed).
 */
function listedIssues(issues: readonly IssueState[]): IssueState[] {
  const openErpCategories = new Set(issues.filter((i) => i.source === 'erp' && open(i)).map((i) => i.issueCategory));
  return issues.filter((i) => !(i.source === 'hold' && open(i) && openErpCategories.has(i.issueCategory)));
}

/** §4.2: the open derived hold's category, else the first open ERP issue's, whatever issues are asked for. */
function detailIssueCategory(issues: readonly IssueState[]): IssueCategory | undefined {
  return (issues.find((i) => i.source === 'hold' && open(i)) ?? issues.find((i) => i.source === 'erp' && open(i)))?.issueCategory;
}

function issuesAsked(issues: readonly IssueState[], detail: IssueDetailType): IssueView[] {
  if (detail === 'noIssues') return [];
  const listed = listedIssues(issues);
  return (detail === 'openIssues' ? listed.filter(open) : listed).map(toIssueView);
}

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

/** A package without the store's bookkeeping beside it (its visible time). */
function toPackageV2(pkg: PackageState): PackageV2View {
  const { items } = pkg;
  return { id: pkg.packageId, ...picked(pkg, packageFields), ...(items ? { items: items.map((item) => picked(item, itemFields)) } : {}) };
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
