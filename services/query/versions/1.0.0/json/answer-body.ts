// The 200 bodies of the 1.0.0 JSON routes, {"orders":[…]} and {"shipments":[…]}: the views as content
// trees (../../../protocol/content-tree.ts) of the bodies service.md lists, which are not the SOAP
// answers' (other names, fewer fields: no address3/4, destination type, dimensions, accounts,
// terms or items), written by the one JSON writer (../../../protocol/json/json-body.ts) one
// purchase order at a time. Only the properties of the routes' response schemas (./schemas.ts, which
// describe these bodies in the OpenAPI description), in the order their serializer wrote them (the
// golden answers, test/golden/): each object's required properties first, then the others, each
// in schema order. An absent optional property is left out; a required one missing fails the
// answer (500), as the serializer did.
import type { Address, OrderStatusDetailView, OrderStatusView, PackageView, SalesOrderShipmentView, ShipmentLocationView, ShipmentNotificationView } from '../../../../../contracts/lookup-answers.js';
import type { AnswerChunks } from '../../../http/answer-chunks.js';
import type { Tree } from '../../../protocol/content-tree.js';
import { writeJsonArrayAsRead, writeJsonArrays } from '../../../protocol/json/json-body.js';
import { formatDateTime } from '../../../protocol/xsd-datetime.js';
import { required } from '../content-values.js';
import { mapBatches } from '../../../../../contracts/lookups.js';

/**
 * A date as its ISO 8601 text: the same text JSON.stringify gives a Date, without its call to
 * toJSON per date, which took JSON.stringify off its fast path (a 5,000-order status answer
 * cost about three times the CPU).
 */
const dateText = <T>(value: Date | T): string | T => (value instanceof Date ? formatDateTime(value) : value);

const detailTree = (d: OrderStatusDetailView): Tree => ({
  factoryOrderNumber: required(d.factoryOrderNumber, 'factoryOrderNumber'),
  statusID: required(d.statusID, 'statusID'),
  validTimestamp: dateText(required(d.validTimestamp, 'validTimestamp')),
  statusName: d.statusName,
  expectedShipDate: dateText(d.expectedShipDate),
  expectedDeliveryDate: dateText(d.expectedDeliveryDate),
  responseRequired: d.responseRequired,
});

const orderTree = (o: OrderStatusView): Tree => ({
  purchaseOrderNumber: required(o.purchaseOrderNumber, 'purchaseOrderNumber'),
  details: required(o.details, 'details').map(detailTree),
});

const addressTree = (a: Address): Tree => ({
  address1: required(a.address1, 'address1'),
  city: required(a.city, 'city'),
  region: required(a.region, 'region'),
  postalCode: required(a.postalCode, 'postalCode'),
  address2: a.address2,
  country: a.country,
});

const packageTree = (p: PackageView): Tree => ({
  trackingNumber: required(p.trackingNumber, 'trackingNumber'),
  id: p.id,
  shipmentDate: dateText(p.shipmentDate),
  carrier: p.carrier,
  shipmentMethod: p.shipmentMethod,
  weight: p.weight,
  weightUOM: p.weightUOM,
});

const locationTree = (l: ShipmentLocationView): Tree => ({
  id: required(l.id, 'id'),
  complete: required(l.complete, 'complete'),
  shipFromAddress: addressTree(required(l.shipFromAddress, 'shipFromAddress')),
  shipToAddress: addressTree(required(l.shipToAddress, 'shipToAddress')),
  packages: required(l.packages, 'packages').map(packageTree),
});

const salesOrderTree = (so: SalesOrderShipmentView): Tree => ({
  salesOrderNumber: required(so.salesOrderNumber, 'salesOrderNumber'),
  complete: required(so.complete, 'complete'),
  locations: required(so.locations, 'locations').map(locationTree),
});

const shipmentTree = (n: ShipmentNotificationView): Tree => ({
  purchaseOrderNumber: required(n.purchaseOrderNumber, 'purchaseOrderNumber'),
  complete: required(n.complete, 'complete'),
  salesOrders: required(n.salesOrders, 'salesOrders').map(salesOrderTree),
});

function* trees<V>(views: readonly V[], tree: (view: V) => Tree): Generator<Tree> {
  for (const view of views) yield tree(view);
}

/** Writes `{"orders":[…]}`, `{"orders":[]}` when there is none. */
export function orderStatusJson(orders: readonly OrderStatusView[]): (out: AnswerChunks) => void {
  return (out) => writeJsonArrays(out, [['orders', trees(orders, orderTree)]], 'written');
}

/** Writes `{"shipments":[…]}`, `{"shipments":[]}` when there is none, as the batches come. */
export function shipmentsJson(batches: AsyncIterable<readonly ShipmentNotificationView[]>): (out: AnswerChunks) => AsyncIterable<void> {
  return (out) => writeJsonArrayAsRead(out, 'shipments', mapBatches(batches, (batch) => trees(batch, shipmentTree)), 'written');
}
