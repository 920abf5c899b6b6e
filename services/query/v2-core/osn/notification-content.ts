// The content of one OrderShipmentNotification of OSN 2.0.0 and 2.1.0 (oss-osn-2.0.0.md §4.3,
// docs/design/osn-2.1.0.md §3), fitted to their XSDs as a version's dialect says: keys are the
// element names in XSD order, each XArray a list of its X, absent values undefined (contentXml writes no element for
// one, JSON.stringify no key). The SOAP answer writes it as XML, the JSON v2 twin sends it as it
// is, so the two cannot say different things. (Type aliases, not interfaces: the tree writer takes
// them as records of element names.)
import type { ItemV2View, PackageV2View, SalesOrderShipmentV2View, ShipmentNotificationV2View, ShipmentV2View } from '../../../../contracts/lookup-answers-v2.js';
import { preProductionProofs, quantityUoms, type PreProductionProof, type QuantityUom } from '../../../../contracts/v2-vocabulary.js';
import { formatDateTime } from '../../protocol/xsd-datetime.js';
import { collapseWhitespace, fitFractionDigits, fitShippingAddress, fitText, type Degraded, type ShippingContactDetails } from '../fitting.js';

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
  /** 2.1.0 and the JSON v2 twin only: what is on the label, 1 to 4 (absent when none). */
  shipReferences?: string[];
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

/** dimUOMType of SharedOSNObjects.xsd, 2.0.0 and 2.1.0 alike (contract v1 allows the same words). */
export const DIM_UOMS: readonly string[] = ['Inches', 'Feet', 'mm', 'cm', 'Meters'];

/**
 * What the versions that write this content show differently (docs/design/osn-2.1.0.md §1, §3):
 * 2.0.0's SOAP answer is the contract's content as 2.0.0 has always answered it; its JSON twin
 * adds shipReferences; 2.1.0 adds them, spells the weight unit `kg` and allows 4 fraction digits.
 */
export interface NotificationDialect {
  /** The weight unit answered for each contract word (weightUOMType); a word not here is left out. */
  weightUoms: ReadonlyMap<string, string>;
  /** The most fraction digits of a dimension, weight or quantity (rounded half-even); undefined: any. */
  fractionDigits?: number;
  /** Whether packages show their shipReferences. */
  shipReferences: boolean;
}

/** The weight units of the contract, which are 2.0.0's weightUOMType. */
export const WEIGHT_UOMS: readonly string[] = ['Ounces', 'Pounds', 'Grams', 'KG'];

const INT32_MAX = 2_147_483_647;
/** Package.shipReferences' maxOccurs (2.1.0), the contract's limit too. */
const MAX_SHIP_REFERENCES = 4;

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

/** A finite number with at most the dialect's fraction digits (a cut told to `degraded` as `field`). */
function fitDecimal(value: number, field: string, degraded: Degraded, dialect: NotificationDialect): number {
  return dialect.fractionDigits === undefined ? value : fitFractionDigits(value, dialect.fractionDigits, field, degraded);
}

/** A stored decimal as the dialect answers it, or undefined (see finite). */
function decimal(value: number | undefined, field: string, degraded: Degraded, dialect: NotificationDialect): number | undefined {
  const number = finite(value, field, degraded);
  return number === undefined ? undefined : fitDecimal(number, field, degraded, dialect);
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
function itemContent(item: ItemV2View, degraded: Degraded, dialect: NotificationDialect): ItemContent | undefined {
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
    Quantity: { value: fitDecimal(quantity, 'quantity', degraded, dialect), uom },
  };
}

/**
 * S:Dimension: DimensionSize when its unit is a dimUOMType word and at least one size is known,
 * DimensionWeight when both unit and weight are; a half that cannot be complete is left out.
 */
function dimensionContent(pkg: PackageV2View, degraded: Degraded, dialect: NotificationDialect): PackageContent['Dimension'] {
  const sizes = {
    length: decimal(pkg.length, 'length', degraded, dialect),
    width: decimal(pkg.width, 'width', degraded, dialect),
    height: decimal(pkg.height, 'height', degraded, dialect),
  };
  const hasSize = sizes.length !== undefined || sizes.width !== undefined || sizes.height !== undefined;
  const dimUOM = known(pkg.dimUOM);
  let size: DimensionSizeContent | undefined;
  if (hasSize && dimUOM !== undefined && DIM_UOMS.includes(dimUOM)) size = { dimUOM, ...sizes };
  else if (hasSize || dimUOM !== undefined) degraded('DimensionSize');

  const unitWord = known(pkg.weightUOM);
  const weightUOM = unitWord === undefined ? undefined : dialect.weightUoms.get(unitWord);
  const weightValue = decimal(pkg.weight, 'weight', degraded, dialect);
  let weight: DimensionWeightContent | undefined;
  if (weightValue !== undefined && weightUOM !== undefined) weight = { weightUOM, weight: weightValue };
  else if (weightValue !== undefined || unitWord !== undefined) degraded('DimensionWeight');

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

/** Up to 4 shipReferences, each 1..64 (the contract allows no more; an older document is fitted). */
function shipReferences(pkg: PackageV2View, degraded: Degraded): string[] | undefined {
  const references: string[] = [];
  for (const reference of pkg.shipReferences ?? []) {
    const text = fitText(reference, 64, 'shipReferences', degraded);
    if (text !== undefined) references.push(text);
  }
  if (references.length > MAX_SHIP_REFERENCES) degraded('shipReferences');
  return references.length > 0 ? references.slice(0, MAX_SHIP_REFERENCES) : undefined;
}

function packageContent(pkg: PackageV2View, degraded: Degraded, dialect: NotificationDialect): PackageContent {
  // M:id is xsd:integer; a stored id is a whole number (contract: integer >= 1).
  let id: number | undefined = pkg.id;
  if (!Number.isSafeInteger(id)) {
    degraded('id');
    id = undefined;
  }
  const items: ItemContent[] = [];
  for (const item of pkg.items ?? []) {
    const content = itemContent(item, degraded, dialect);
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
    Dimension: dimensionContent(pkg, degraded, dialect),
    FreightDetails: freightDetailsContent(pkg, degraded),
    shippingAccount: fitText(pkg.shippingAccount, 128, 'shippingAccount', degraded),
    shipmentTerms: fitText(pkg.shipmentTerms, 128, 'shipmentTerms', degraded),
    ItemArray: items.length > 0 ? items : undefined,
    preProductionProof,
    shipReferences: dialect.shipReferences ? shipReferences(pkg, degraded) : undefined,
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
function shipmentContent(location: ShipmentV2View, degraded: Degraded, dialect: NotificationDialect): ShipmentContent | undefined {
  if (location.packages.length === 0) return undefined;
  return {
    destinationShippedInFull: location.complete,
    customerPickup: location.customerPickup ?? false,
    shipFromAddress: fitShippingAddress(location.shipFromAddress, degraded),
    shipToAddress: fitShippingAddress(location.shipToAddress, degraded),
    shipmentDestinationType: destinationType(location.shipmentDestinationType, degraded),
    PackageArray: location.packages.map((pkg) => packageContent(pkg, degraded, dialect)),
  };
}

/** The shipments of a sales order that have a package to show, in its location order. */
export function shipmentContents(salesOrder: SalesOrderShipmentV2View, degraded: Degraded, dialect: NotificationDialect): ShipmentContent[] {
  const shipments: ShipmentContent[] = [];
  for (const location of salesOrder.shipments) {
    const content = shipmentContent(location, degraded, dialect);
    if (content) shipments.push(content);
  }
  return shipments;
}

function salesOrderContent(salesOrder: SalesOrderShipmentV2View, degraded: Degraded, dialect: NotificationDialect): SalesOrderContent | undefined {
  const shipments = shipmentContents(salesOrder, degraded, dialect);
  if (shipments.length === 0) return undefined;
  return { salesOrderNumber: salesOrder.salesOrderNumber, salesOrderShippedInFull: salesOrder.complete, ShipmentArray: shipments };
}

/**
 * One purchase order's M:OrderShipmentNotification, or undefined when none of its sales orders has
 * a package to show (SalesOrderArray and ShipmentArray need one each). PO and sales order numbers
 * are answered as stored (§10.6).
 */
export function orderShipmentNotificationContent(view: ShipmentNotificationV2View, degraded: Degraded, dialect: NotificationDialect): OrderShipmentNotificationContent | undefined {
  const salesOrders: SalesOrderContent[] = [];
  for (const salesOrder of view.salesOrders) {
    const content = salesOrderContent(salesOrder, degraded, dialect);
    if (content) salesOrders.push(content);
  }
  if (salesOrders.length === 0) return undefined;
  return { purchaseOrderNumber: view.purchaseOrderNumber, purchaseOrderShippedInFull: view.complete, SalesOrderArray: salesOrders };
}
