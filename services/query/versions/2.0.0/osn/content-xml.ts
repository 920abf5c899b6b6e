// Writes OSN 2.0.0 answer content (notification-content.ts: element names as keys in XSD order,
// each XArray a list of X) as XML text, by the one tree writer (../../../protocol/soap/tree-xml.ts).
// The response XSD declares its own elements in M and takes some by ref from SharedOSNObjects.xsd,
// in S; everything inside an S element, and inside the two addresses (M elements of an S type), is
// in S. Default namespace M, prefix `shar` for S.
import { treeXmlWriter } from '../../../protocol/soap/tree-xml.js';

/** Elements that the M elements of GetOrderShipmentNotificationResponse.xsd take by ref from S. */
const SHARED_REFS = new Set([
  'purchaseOrderNumber',
  'salesOrderNumber',
  'trackingNumber',
  'Dimension',
  'FreightDetails',
  'shippingAccount',
  'shipmentTerms',
  'supplierProductId',
  'supplierPartId',
  'distributorProductId',
  'distributorPartId',
  'Quantity',
  'ServiceMessage',
]);

/** M elements whose type, ShippingContactDetails, is S's: their children are S elements. */
const SHARED_TYPED = new Set(['shipFromAddress', 'shipToAddress']);

/** The element `name` holding `value` (a notification, or the ServiceMessageArray). */
export const { elementXml: contentXml } = treeXmlWriter({ prefixed: { prefix: 'shar:', refs: SHARED_REFS, typed: SHARED_TYPED } });
