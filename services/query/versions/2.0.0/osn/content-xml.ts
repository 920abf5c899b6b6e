// Writes OSN 2.0.0 answer content (notification-content.ts: element names as keys in XSD order,
// each XArray a list of X) as XML text. The response XSD declares its own elements in M and takes
// some by ref from SharedOSNObjects.xsd, in S; everything inside an S element, and inside the two
// addresses (M elements of an S type), is in S. Default namespace M, prefix `shar` for S.
import { element, formatBoolean, formatDecimal, textElement } from '../../../protocol/soap/xml-text.js';

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

/** A content value: text, number, boolean, a list (under an XArray key) or an element's children. */
export type ContentValue = string | number | boolean | readonly ContentValue[] | { readonly [name: string]: ContentValue | undefined };

/** The element `name` holding `value`; `inShared`: its parent's children are S elements. */
export function contentXml(name: string, value: ContentValue, inShared = false): string {
  const shared = inShared || SHARED_REFS.has(name);
  const tag = shared ? `shar:${name}` : name;
  if (typeof value === 'string') return textElement(tag, value);
  if (typeof value === 'number') return element(tag, formatDecimal(value));
  if (typeof value === 'boolean') return element(tag, formatBoolean(value));
  let children = '';
  if (isList(value)) {
    // XArray holds X+; the wrappers are all M's own elements, their items M's or S's refs.
    const itemName = name.slice(0, -'Array'.length);
    for (const item of value) children += contentXml(itemName, item, shared);
  } else {
    const childrenShared = shared || SHARED_TYPED.has(name);
    for (const [childName, child] of Object.entries(value)) if (child !== undefined) children += contentXml(childName, child, childrenShared);
  }
  return `<${tag}>${children}</${tag}>`;
}

function isList(value: ContentValue): value is readonly ContentValue[] {
  return Array.isArray(value);
}
