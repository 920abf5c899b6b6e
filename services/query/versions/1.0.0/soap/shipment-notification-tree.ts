// GetOrderShipmentNotificationResponse: the views as content trees (../../../protocol/content-tree.ts:
// keys are the elements of the OSN 1.0.0 XSDs in their order), written by the one tree writer
// (../../../protocol/soap/tree-xml.ts) one purchase order at a time. All elements are in the OSN
// namespace except the address lines (address1..country), which the response XSD takes by ref
// from SharedOSNObjects.xsd and so live in the SharedObjects namespace (prefix `shar`).
import type { Address, PackageItem, PackageView, SalesOrderShipmentView, ShipmentLocationView, ShipmentNotificationView } from '../../../../../contracts/lookup-answers.js';
import type { AnswerChunks } from '../../../http/answer-chunks.js';
import type { Tree } from '../../../protocol/content-tree.js';
import { treeXmlWriter } from '../../../protocol/soap/tree-xml.js';
import { finite, required } from '../content-values.js';
import { OSN_NS, OSN_SHARED_NS } from '../namespaces.js';

/** The two addresses are OSN elements whose children are SharedObjects' address lines. */
const { elementXml } = treeXmlWriter({ prefixed: { prefix: 'shar:', refs: new Set(), typed: new Set(['ShipFromAddress', 'ShipToAddress']) } });

// Optional token fields have minLength 1: an empty string is left out like an absent one (`|| undefined`).

const addressTree = (a: Address): Tree => ({
  address1: required(a.address1, 'address1'),
  address2: a.address2 || undefined,
  address3: a.address3 || undefined,
  address4: a.address4 || undefined,
  city: required(a.city, 'city'),
  region: required(a.region, 'region'),
  postalCode: required(a.postalCode, 'postalCode'),
  country: a.country || undefined,
});

const itemTree = (item: PackageItem): Tree => ({
  supplierProductId: item.supplierProductId || undefined,
  supplierPartId: item.supplierPartId || undefined,
  distributorProductId: item.distributorProductId || undefined,
  distributorPartId: item.distributorPartId || undefined,
  purchaseOrderLineNumber: item.purchaseOrderLineNumber || undefined,
  quantity: finite(item.quantity),
});

const packageTree = (p: PackageView): Tree => ({
  id: finite(p.id),
  trackingNumber: required(p.trackingNumber, 'trackingNumber'),
  shipmentDate: required(p.shipmentDate, 'shipmentDate'),
  dimUOM: p.dimUOM || undefined,
  length: finite(p.length),
  width: finite(p.width),
  height: finite(p.height),
  weightUOM: p.weightUOM || undefined,
  weight: finite(p.weight),
  carrier: p.carrier || undefined,
  shipmentMethod: p.shipmentMethod || undefined,
  shippingAccount: p.shippingAccount || undefined,
  shipmentTerms: p.shipmentTerms || undefined,
  // An XArray needs an item: none leaves it out.
  ItemArray: p.items && p.items.length > 0 ? p.items.map(itemTree) : undefined,
});

const locationTree = (l: ShipmentLocationView): Tree => ({
  id: finite(l.id),
  complete: required(l.complete, 'complete'),
  ShipFromAddress: addressTree(l.shipFromAddress),
  ShipToAddress: addressTree(l.shipToAddress),
  shipmentDestinationType: l.shipmentDestinationType || undefined,
  PackageArray: l.packages.length > 0 ? l.packages.map(packageTree) : undefined,
});

const salesOrderTree = (so: SalesOrderShipmentView): Tree => ({
  salesOrderNumber: required(so.salesOrderNumber, 'salesOrderNumber'),
  complete: required(so.complete, 'complete'),
  // Required by the XSD, so written even without a location (an empty element).
  ShipmentLocationArray: so.locations.map(locationTree),
});

/** One OrderShipmentNotification: written one at a time, so a 5,000-order answer is never one tree. */
export const shipmentNotificationTree = (n: ShipmentNotificationView): Tree => ({
  purchaseOrderNumber: required(n.purchaseOrderNumber, 'purchaseOrderNumber'),
  complete: required(n.complete, 'complete'),
  SalesOrderArray: n.salesOrders.length > 0 ? n.salesOrders.map(salesOrderTree) : undefined,
});

const RESPONSE = `GetOrderShipmentNotificationResponse xmlns="${OSN_NS}" xmlns:shar="${OSN_SHARED_NS}"`;

/** Writes these notifications after others were (`written`) or not; whether any is written now. */
function writeNotifications(notifications: readonly ShipmentNotificationView[], out: AnswerChunks, written: boolean): boolean {
  for (const notification of notifications) {
    if (!written) out.add(`<${RESPONSE}><OrderShipmentNotificationArray>`);
    written = true;
    out.add(elementXml('OrderShipmentNotification', shipmentNotificationTree(notification)));
  }
  return written;
}

/**
 * Ends the Body's content. An empty result leaves OrderShipmentNotificationArray out: the XSD makes the
 * array optional but wants at least one OrderShipmentNotification inside it, so an empty element
 * would not validate.
 */
const endPayload = (out: AnswerChunks, written: boolean): void => out.add(written ? '</OrderShipmentNotificationArray></GetOrderShipmentNotificationResponse>' : `<${RESPONSE}/>`);

/**
 * Writes the Body's content as the batches come, yielding after each (sent as it is read:
 * docs/partners.md, "Large answers"); an answer read whole (queryType 1, 2) comes as one batch.
 */
export async function* shipmentNotificationPayloadAsRead(batches: AsyncIterable<readonly ShipmentNotificationView[]>, out: AnswerChunks): AsyncGenerator<void> {
  let written = false;
  for await (const notifications of batches) {
    written = writeNotifications(notifications, out, written);
    yield;
  }
  endPayload(out, written);
}
