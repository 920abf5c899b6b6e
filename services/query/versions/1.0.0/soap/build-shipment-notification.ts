// GetOrderShipmentNotificationResponse, element order as in the OSN 1.0.0 XSDs, written as XML
// text straight from the views (bench/soap-builders.ts compares this with the XML libraries). All
// elements are in the OSN namespace except the address lines (address1..country), which the
// response XSD takes by ref from SharedOSNObjects.xsd and so live in the SharedObjects namespace.
import type { Address, PackageItem, PackageView, ShipmentLocationView, ShipmentNotificationView } from '../../../../../contracts/lookup-answers.js';
import { OSN_NS, OSN_SHARED_NS } from '../namespaces.js';
import { element, formatBoolean, formatDateTime, formatDecimal, textElement } from '../../../protocol/soap/xml-text.js';
import type { AnswerChunks } from '../../../http/answer-chunks.js';

// Optional token fields with minLength 1: an empty string is left out like an absent one.
const optional = (name: string, value: string | undefined): string => (value ? textElement(name, value) : '');

const optionalDecimal = (name: string, value: number | undefined): string =>
  value !== undefined && Number.isFinite(value) ? element(name, formatDecimal(value)) : '';

function addressXml(name: string, address: Address): string {
  return element(
    name,
    textElement('shar:address1', address.address1) +
      optional('shar:address2', address.address2) +
      optional('shar:address3', address.address3) +
      optional('shar:address4', address.address4) +
      textElement('shar:city', address.city) +
      textElement('shar:region', address.region) +
      textElement('shar:postalCode', address.postalCode) +
      optional('shar:country', address.country),
  );
}

function itemXml(item: PackageItem): string {
  return element(
    'Item',
    optional('supplierProductId', item.supplierProductId) +
      optional('supplierPartId', item.supplierPartId) +
      optional('distributorProductId', item.distributorProductId) +
      optional('distributorPartId', item.distributorPartId) +
      optional('purchaseOrderLineNumber', item.purchaseOrderLineNumber) +
      optionalDecimal('quantity', item.quantity),
  );
}

function packageXml(pkg: PackageView): string {
  let xml =
    optionalDecimal('id', pkg.id) +
    textElement('trackingNumber', pkg.trackingNumber) +
    element('shipmentDate', formatDateTime(pkg.shipmentDate)) +
    optional('dimUOM', pkg.dimUOM) +
    optionalDecimal('length', pkg.length) +
    optionalDecimal('width', pkg.width) +
    optionalDecimal('height', pkg.height) +
    optional('weightUOM', pkg.weightUOM) +
    optionalDecimal('weight', pkg.weight) +
    optional('carrier', pkg.carrier) +
    optional('shipmentMethod', pkg.shipmentMethod) +
    optional('shippingAccount', pkg.shippingAccount) +
    optional('shipmentTerms', pkg.shipmentTerms);
  if (pkg.items && pkg.items.length > 0) {
    let items = '';
    for (const item of pkg.items) items += itemXml(item);
    xml += `<ItemArray>${items}</ItemArray>`;
  }
  return element('Package', xml);
}

function locationXml(location: ShipmentLocationView): string {
  let xml =
    optionalDecimal('id', location.id) +
    element('complete', formatBoolean(location.complete)) +
    addressXml('ShipFromAddress', location.shipFromAddress) +
    addressXml('ShipToAddress', location.shipToAddress) +
    optional('shipmentDestinationType', location.shipmentDestinationType);
  if (location.packages.length > 0) {
    let packages = '';
    for (const pkg of location.packages) packages += packageXml(pkg);
    xml += `<PackageArray>${packages}</PackageArray>`;
  }
  return `<ShipmentLocation>${xml}</ShipmentLocation>`;
}

function notificationXml(notification: ShipmentNotificationView): string {
  let xml = textElement('purchaseOrderNumber', notification.purchaseOrderNumber) + element('complete', formatBoolean(notification.complete));
  if (notification.salesOrders.length > 0) {
    let salesOrders = '';
    for (const so of notification.salesOrders) {
      let locations = '';
      for (const location of so.locations) locations += locationXml(location);
      salesOrders += `<SalesOrder>${textElement('salesOrderNumber', so.salesOrderNumber)}${element('complete', formatBoolean(so.complete))}${element('ShipmentLocationArray', locations)}</SalesOrder>`;
    }
    xml += `<SalesOrderArray>${salesOrders}</SalesOrderArray>`;
  }
  return `<OrderShipmentNotification>${xml}</OrderShipmentNotification>`;
}

/**
 * Writes the Body's content. An empty result leaves OrderShipmentNotificationArray out: the XSD makes the
 * array optional but wants at least one OrderShipmentNotification inside it, so an empty element
 * would not validate.
 */
export function shipmentNotificationPayload(notifications: ShipmentNotificationView[], out: AnswerChunks): void {
  const open = `GetOrderShipmentNotificationResponse xmlns="${OSN_NS}" xmlns:shar="${OSN_SHARED_NS}"`;
  if (notifications.length === 0) return out.add(`<${open}/>`);
  out.add(`<${open}><OrderShipmentNotificationArray>`);
  for (const notification of notifications) out.add(notificationXml(notification));
  out.add('</OrderShipmentNotificationArray></GetOrderShipmentNotificationResponse>');
}
