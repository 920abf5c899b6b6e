// The content of one M:OrderShipmentNotification of OSN 2.0.0 (oss-osn-2.0.0.md §4.3), fitted to
// GetOrderShipmentNotificationResponse.xsd and SharedOSNObjects.xsd: keys are the element names in
// XSD order, each XArray a list of its X, absent values undefined (contentXml writes no element for
// one, JSON.stringify no key). The SOAP answer writes it as XML, the JSON v2 twin sends it as it
// is, so the two cannot say different things. (Type aliases, not interfaces: the tree writer takes
// them as records of element names.)
import type { ItemV2View, PackageV2View, SalesOrderShipmentV2View, ShipmentNotificationV2View, ShipmentV2View } from '../../../../../contracts/lookup-answers-v2.js';
import { preProductionProofs, quantityUoms, type PreProductionProof, type QuantityUom } from '../../../../../contracts/v2-vocabulary.js';
import { formatDateTime } from '../../../protocol/xsd-datetime.js';
import { collapseWhitespace, fitShippingAddress, fitText, type Degraded, type ShippingContactDetails } from '../fitting.js';

export type QuantityContent = {
  value: number;
  uom: QuantityUom;
};

export type ItemContent = {
  supplierProductId: string;
  supplierPartId?: string;
  distributorProductId?: string;
  distributorPartId?: string;
  purchaseOrderLineNumber?: number;
  Quantity: QuantityContent;
};

export type DimensionSizeContent = {
  dimUOM: string;
  length?: number;
  width?: number;
  height?: number;
};

export type DimensionWeightContent = {
  weightUOM: string;
  weight: number;
};

export type PackageContent = {
  id?: number;
  trackingNumber?: string;
  /** xsd:dateTime in UTC. */
  shipmentDate: string;
  Dimension?: { DimensionSize?: DimensionSizeContent; DimensionWeight?: DimensionWeightContent };
  FreightDetails?: { carrier: string; service: string };
  shippingAccount?: string;
  shipmentTerms?: string;
  ItemArray?: ItemContent[];
  preProductionProof: PreProductionProof;
};

/** shipmentDestinationTypeType of SharedOSNObjects.xsd (v1's None is its Other). */
export const shipmentDestinationTypesV2 = ['Commercial', 'Residential', 'Other'] as const;
export type ShipmentDestinationType = (typeof shipmentDestinationTypesV2)[number];

export type ShipmentContent = {
  destinationShippedInFull: boolean;
  customerPickup: boolean;
  shipFromAddress: ShippingContactDetails;
  shipToAddress: ShippingContactDetails;
  shipmentDestinationType?: ShipmentDestinationType;
  PackageArray: PackageContent[];
};

export type SalesOrderContent = {
  salesOrderNumber: string;
  salesOrderShippedInFull: boolean;
  ShipmentArray: ShipmentContent[];
};

export type OrderShipmentNotificationContent = {
  purchaseOrderNumber: string;
  purchaseOrderShippedInFull: boolean;
  SalesOrderArray: SalesOrderContent[];
};

/** dimUOMType and weightUOMType of SharedOSNObjects.xsd (contract v1 allows the same words). */
export const DIM_UOMS: readonly string[] = ['Inches', 'Feet', 'mm', 'cm', 'Meters'];
export const WEIGHT_UOMS: readonly string[] = ['Ounces', 'Pounds', 'Grams', 'KG'];
const INT32_MAX = 2_147_483_647;

/** A collapsed, non-blank string, or undefined: what "known" means for a text value. */
function known(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = collapseWhitespace(value);
  return text === '' ? undefined : text;
}

/** A finite number, or undefined; a stored one that is not finite (no XSD decimal) is told to `degraded`. */
function finite(value: number | undefined, field: string, degraded: Degraded): number | undefined {
  if (value === undefined) return undefined;
  if (Number.isFinite(value)) return value;
  degraded(field);
  return undefined;
}

/** xsd:int: digits only, within int32; anything else is left out. */
function purchaseOrderLineNumber(value: string | undefined, degraded: Degraded): number | undefined {
  const text = known(value);
  if (text === undefined) return undefined;
  if (/^\d+$/.test(text)) {
    const number = Number(text);
    if (number <= INT32_MAX) return number;
  }
  degraded('purchaseOrderLineNumber');
  return undefined;
}

/** An item, or undefined when it has no supplierProductId or quantity (the XSD requires both). */
function itemContent(item: ItemV2View, degraded: Degraded): ItemContent | undefined {
  const supplierProductId = fitText(item.supplierProductId, 64, 'supplierProductId', degraded);
  const quantity = item.quantity !== undefined && Number.isFinite(item.quantity) ? item.quantity : undefined;
  if (supplierProductId === undefined || quantity === undefined) {
    degraded('Item');
    return undefined;
  }
  let uom: QuantityUom = 'EA';
  if (item.uom !== undefined) {
    if ((quantityUoms as readonly string[]).includes(item.uom)) uom = item.uom;
    else degraded('uom');
  }
  return {
    supplierProductId,
    supplierPartId: fitText(item.supplierPartId, 64, 'supplierPartId', degraded),
    distributorProductId: fitText(item.distributorProductId, 64, 'distributorProductId', degraded),
    distributorPartId: fitText(item.distributorPartId, 64, 'distributorPartId', degraded),
    purchaseOrderLineNumber: purchaseOrderLineNumber(item.purchaseOrderLineNumber, degraded),
    Quantity: { value: quantity, uom },
  };
}

/**
 * S:Dimension: DimensionSize when its unit is a dimUOMType word and at least one size is known,
 * DimensionWeight when both unit and weight are; a half that cannot be complete is left out.
 */
function dimensionContent(pkg: PackageV2View, degraded: Degraded): PackageContent['Dimension'] {
  const sizes = {
    length: finite(pkg.length, 'length', degraded),
    width: finite(pkg.width, 'width', degraded),
    height: finite(pkg.height, 'height', degraded),
  };
  const hasSize = sizes.length !== undefined || sizes.width !== undefined || sizes.height !== undefined;
  const dimUOM = known(pkg.dimUOM);
  let size: DimensionSizeContent | undefined;
  if (hasSize && dimUOM !== undefined && DIM_UOMS.includes(dimUOM)) size = { dimUOM, ...sizes };
  else if (hasSize || dimUOM !== undefined) degraded('DimensionSize');

  const weightUOM = known(pkg.weightUOM);
  const weightValue = finite(pkg.weight, 'weight', degraded);
  let weight: DimensionWeightContent | undefined;
  if (weightValue !== undefined && weightUOM !== undefined && WEIGHT_UOMS.includes(weightUOM)) weight = { weightUOM, weight: weightValue };
  else if (weightValue !== undefined || weightUOM !== undefined) degraded('DimensionWeight');

  if (size === undefined && weight === undefined) return undefined;
  return { DimensionSize: size, DimensionWeight: weight };
}

/** S:FreightDetails: carrier and service (carrierService ?? shipmentMethod) each cut to 64, only when both are known: no invented service. */
function freightDetailsContent(pkg: PackageV2View, degraded: Degraded): PackageContent['FreightDetails'] {
  const carrier = known(pkg.carrier);
  const service = known(pkg.carrierService) ?? known(pkg.shipmentMethod);
  if (carrier !== undefined && service !== undefined) {
    return { carrier: fitText(carrier, 64, 'carrier', degraded) as string, service: fitText(service, 64, 'service', degraded) as string };
  }
  if (carrier !== undefined || service !== undefined) degraded('FreightDetails');
  return undefined;
}

function packageContent(pkg: PackageV2View, degraded: Degraded): PackageContent {
  // M:id is xsd:integer; a stored id is a whole number (contract: integer >= 1).
  let id: number | undefined = pkg.id;
  if (!Number.isSafeInteger(id)) {
    degraded('id');
    id = undefined;
  }
  const items: ItemContent[] = [];
  for (const item of pkg.items ?? []) {
    const content = itemContent(item, degraded);
    if (content) items.push(content);
  }
  let preProductionProof: PreProductionProof = 'Unknown';
  if (pkg.preProductionProof !== undefined) {
    if (preProductionProofs.includes(pkg.preProductionProof)) preProductionProof = pkg.preProductionProof;
    else degraded('preProductionProof');
  }
  return {
    id,
    trackingNumber: fitText(pkg.trackingNumber, 128, 'trackingNumber', degraded),
    shipmentDate: formatDateTime(pkg.shipmentDate),
    Dimension: dimensionContent(pkg, degraded),
    FreightDetails: freightDetailsContent(pkg, degraded),
    shippingAccount: fitText(pkg.shippingAccount, 128, 'shippingAccount', degraded),
    shipmentTerms: fitText(pkg.shipmentTerms, 128, 'shipmentTerms', degraded),
    ItemArray: items.length > 0 ? items : undefined,
    preProductionProof,
  };
}

/** v1's `None` is 2.0.0's `Other` (the third value renamed); a word outside the XSD's list is left out. */
function destinationType(value: string | undefined, degraded: Degraded): ShipmentDestinationType | undefined {
  const word = known(value);
  if (word === undefined) return undefined;
  if (word === 'None' || word === 'Other') return 'Other';
  if (word === 'Commercial' || word === 'Residential') return word;
  degraded('shipmentDestinationType');
  return undefined;
}

/** A location as M:Shipment; undefined without a package (PackageArray needs one; the lookup gives none such). */
function shipmentContent(location: ShipmentV2View, degraded: Degraded): ShipmentContent | undefined {
  if (location.packages.length === 0) return undefined;
  return {
    destinationShippedInFull: location.complete,
    customerPickup: location.customerPickup ?? false,
    shipFromAddress: fitShippingAddress(location.shipFromAddress, degraded),
    shipToAddress: fitShippingAddress(location.shipToAddress, degraded),
    shipmentDestinationType: destinationType(location.shipmentDestinationType, degraded),
    PackageArray: location.packages.map((pkg) => packageContent(pkg, degraded)),
  };
}

function salesOrderContent(salesOrder: SalesOrderShipmentV2View, degraded: Degraded): SalesOrderContent | undefined {
  const shipments: ShipmentContent[] = [];
  for (const location of salesOrder.shipments) {
    const content = shipmentContent(location, degraded);
    if (content) shipments.push(content);
  }
  if (shipments.length === 0) return undefined;
  return { salesOrderNumber: salesOrder.salesOrderNumber, salesOrderShippedInFull: salesOrder.complete, ShipmentArray: shipments };
}

/**
 * One purchase order's M:OrderShipmentNotification, or undefined when none of its sales orders has
 * a package to show (SalesOrderArray and ShipmentArray need one each). PO and sales order numbers
 * are answered as stored (§10.6).
 */
export function orderShipmentNotificationContent(view: ShipmentNotificationV2View, degraded: Degraded): OrderShipmentNotificationContent | undefined {
  const salesOrders: SalesOrderContent[] = [];
  for (const salesOrder of view.salesOrders) {
    const content = salesOrderContent(salesOrder, degraded);
    if (content) salesOrders.push(content);
  }
  if (salesOrders.length === 0) return undefined;
  return { purchaseOrderNumber: view.purchaseOrderNumber, purchaseOrderShippedInFull: view.complete, SalesOrderArray: salesOrders };
}
