// GetOrderShipmentNotificationResponse, element order as in the OSN 1.0.0 XSDs. All elements are
// in the OSN namespace except the address lines (address1..country), which the response XSD
// takes by ref from SharedOSNObjects.xsd and so live in the SharedObjects namespace.
import type { Address, PackageItemView, PackageView, ShipmentLocationView, ShipmentNotificationView } from '../views.js';
import { OSN_NS, OSN_SHARED_NS } from './namespaces.js';
import type { XmlNode } from './xml-tree.js';
import { formatBoolean, formatDateTime, formatDecimal } from './xml-text.js';

const S = 'shar:';

// Optional token fields with minLength 1: an empty string is left out like an absent one.
function put(node: XmlNode, name: string, value: string | undefined): void {
  if (value) node[name] = value;
}

function putDecimal(node: XmlNode, name: string, value: number | undefined): void {
  if (value !== undefined && Number.isFinite(value)) node[name] = formatDecimal(value);
}

function addressNode(address: Address): XmlNode {
  const node: XmlNode = { [`${S}address1`]: address.address1 };
  put(node, `${S}address2`, address.address2);
  put(node, `${S}address3`, address.address3);
  put(node, `${S}address4`, address.address4);
  node[`${S}city`] = address.city;
  node[`${S}region`] = address.region;
  node[`${S}postalCode`] = address.postalCode;
  put(node, `${S}country`, address.country);
  return node;
}

function itemNode(item: PackageItemView): XmlNode {
  const node: XmlNode = {};
  put(node, 'supplierProductId', item.supplierProductId);
  put(node, 'supplierPartId', item.supplierPartId);
  put(node, 'distributorProductId', item.distributorProductId);
  put(node, 'distributorPartId', item.distributorPartId);
  put(node, 'purchaseOrderLineNumber', item.purchaseOrderLineNumber);
  putDecimal(node, 'quantity', item.quantity);
  return node;
}

function packageNode(pkg: PackageView): XmlNode {
  const node: XmlNode = {};
  putDecimal(node, 'id', pkg.id);
  node['trackingNumber'] = pkg.trackingNumber;
  node['shipmentDate'] = formatDateTime(pkg.shipmentDate);
  put(node, 'dimUOM', pkg.dimUOM);
  putDecimal(node, 'length', pkg.length);
  putDecimal(node, 'width', pkg.width);
  putDecimal(node, 'height', pkg.height);
  put(node, 'weightUOM', pkg.weightUOM);
  putDecimal(node, 'weight', pkg.weight);
  put(node, 'carrier', pkg.carrier);
  put(node, 'shipmentMethod', pkg.shipmentMethod);
  put(node, 'shippingAccount', pkg.shippingAccount);
  put(node, 'shipmentTerms', pkg.shipmentTerms);
  if (pkg.items && pkg.items.length > 0) node['ItemArray'] = { Item: pkg.items.map(itemNode) };
  return node;
}

function locationNode(location: ShipmentLocationView): XmlNode {
  const node: XmlNode = {};
  putDecimal(node, 'id', location.id);
  node['complete'] = formatBoolean(location.complete);
  node['ShipFromAddress'] = addressNode(location.shipFromAddress);
  node['ShipToAddress'] = addressNode(location.shipToAddress);
  put(node, 'shipmentDestinationType', location.shipmentDestinationType);
  if (location.packages.length > 0) node['PackageArray'] = { Package: location.packages.map(packageNode) };
  return node;
}

function notificationNode(notification: ShipmentNotificationView): XmlNode {
  const node: XmlNode = { purchaseOrderNumber: notification.purchaseOrderNumber, complete: formatBoolean(notification.complete) };
  if (notification.salesOrders.length > 0) {
    node['SalesOrderArray'] = {
      SalesOrder: notification.salesOrders.map((so) => ({
        salesOrderNumber: so.salesOrderNumber,
        complete: formatBoolean(so.complete),
        ShipmentLocationArray: { ShipmentLocation: so.locations.map(locationNode) },
      })),
    };
  }
  return node;
}

/**
 * An empty result leaves OrderShipmentNotificationArray out: the XSD makes the array optional but
 * wants at least one OrderShipmentNotification inside it, so an empty element would not validate.
 */
export function shipmentNotificationPayload(notifications: ShipmentNotificationView[]): XmlNode {
  const response: XmlNode = { '@xmlns': OSN_NS, '@xmlns:shar': OSN_SHARED_NS };
  if (notifications.length > 0) {
    response['OrderShipmentNotificationArray'] = { OrderShipmentNotification: notifications.map(notificationNode) };
  }
  return { GetOrderShipmentNotificationResponse: response };
}
