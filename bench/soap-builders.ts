// Renders the same 5,000-purchase-order SOAP answers three ways, side by side in one run, and
// prints the figures: the writer the service answers with (the 1.0.0 content trees,
// services/query/versions/1.0.0/soap/*-tree.ts, one purchase order at a time, written as XML text
// by services/query/protocol/soap/tree-xml.ts, UTF-8 in chunks: the code path of a request; the
// shipment answer through the writer it is sent as read with, fed the answer as one batch, its
// chunks collected), and
// the views shaped as an object tree (key order = element order, arrays = repeated elements,
// '@'-keys = attributes) rendered by fast-xml-parser's XMLBuilder (what the service used before)
// or by xmlbuilder2. All three must give the same bytes. Run: npx tsx bench/soap-builders.ts
import { performance } from 'node:perf_hooks';
import { XMLBuilder } from 'fast-xml-parser';
import { create } from 'xmlbuilder2';
import { orderStatusDetailsPayload } from '../services/query/versions/1.0.0/soap/order-status-tree.js';
import { shipmentNotificationPayloadAsRead } from '../services/query/versions/1.0.0/soap/shipment-notification-tree.js';
import { renderEnvelope, streamedEnvelope, type BodyContent } from '../services/query/protocol/soap/envelope.js';
import { OSN_NS, OSN_SHARED_NS, OSS_NS } from '../services/query/versions/1.0.0/namespaces.js';
import { SOAP_ENVELOPE_NS } from '../services/query/protocol/soap/namespaces.js';
import { escapeText, formatBoolean, formatDecimal } from '../services/query/protocol/soap/xml-text.js';
import { formatDateTime } from '../services/query/protocol/xsd-datetime.js';
import type { Address, OrderStatusDetailView, OrderStatusView, PackageItem, PackageView, ShipmentLocationView, ShipmentNotificationView } from '../contracts/lookup-answers.js';

const ORDERS = 5_000;
const RUNS = 7;

const at = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 60_000);

function statuses(): OrderStatusView[] {
  return Array.from({ length: ORDERS }, (_, i) => ({
    purchaseOrderNumber: `PO-${100000 + i}`,
    details: [0, 1].map((d) => ({
      factoryOrderNumber: `SO-${200000 + i * 2 + d}`,
      statusID: d === 0 ? 60 : 20,
      statusName: d === 0 ? 'In Production' : 'Order Confirmed',
      expectedShipDate: at(i),
      expectedDeliveryDate: at(i + 5),
      responseRequired: false,
      validTimestamp: at(i - 1),
    })),
  }));
}

const address = (i: number): Address => ({
  address1: `${i} Main Street & Co`,
  address2: 'Suite 4',
  city: 'Springfield',
  region: 'IL',
  postalCode: '62701',
  country: 'US',
});

function notifications(): ShipmentNotificationView[] {
  return Array.from({ length: ORDERS }, (_, i) => ({
    purchaseOrderNumber: `PO-${100000 + i}`,
    complete: i % 2 === 0,
    salesOrders: [
      {
        salesOrderNumber: `SO-${200000 + i}`,
        complete: true,
        locations: [
          {
            id: 1,
            complete: true,
            shipFromAddress: address(i),
            shipToAddress: address(i + 1),
            shipmentDestinationType: 'Commercial' as const,
            packages: [1, 2].map((p) => ({
              id: p,
              trackingNumber: `1Z${i}${p}`,
              shipmentDate: at(i),
              dimUOM: 'Inches' as const,
              length: 12,
              width: 10.5,
              height: 4,
              weightUOM: 'Pounds' as const,
              weight: 3.25,
              carrier: 'UPS',
              shipmentMethod: 'Ground',
              items: [
                { supplierProductId: 'P100', supplierPartId: 'P100-RED', purchaseOrderLineNumber: '1', quantity: 24 },
                { supplierProductId: 'P200', supplierPartId: 'P200-BLU', purchaseOrderLineNumber: '2', quantity: 12 },
              ],
            })),
          },
        ],
      },
    ],
  }));
}

// ---- the views as object trees, for the XML libraries

type XmlValue = string | XmlNode | XmlNode[];
interface XmlNode {
  [name: string]: XmlValue;
}

function detailNode(detail: OrderStatusDetailView): XmlNode {
  const node: XmlNode = { factoryOrderNumber: detail.factoryOrderNumber, statusID: formatDecimal(detail.statusID) };
  if (detail.statusName) node['statusName'] = detail.statusName;
  if (detail.expectedShipDate) node['expectedShipDate'] = formatDateTime(detail.expectedShipDate);
  if (detail.expectedDeliveryDate) node['expectedDeliveryDate'] = formatDateTime(detail.expectedDeliveryDate);
  if (detail.responseRequired !== undefined) node['responseRequired'] = formatBoolean(detail.responseRequired);
  node['validTimestamp'] = formatDateTime(detail.validTimestamp);
  return node;
}

function orderStatusTree(orders: OrderStatusView[]): XmlNode {
  const array: XmlNode =
    orders.length === 0
      ? {}
      : {
          OrderStatus: orders.map((order) => ({
            purchaseOrderNumber: order.purchaseOrderNumber,
            OrderStatusDetailArray: { OrderStatusDetail: order.details.map(detailNode) },
          })),
        };
  return { GetOrderStatusDetailsResponse: { '@xmlns': OSS_NS, OrderStatusArray: array } };
}

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

function itemNode(item: PackageItem): XmlNode {
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

function shipmentNotificationTree(notifications: ShipmentNotificationView[]): XmlNode {
  const response: XmlNode = { '@xmlns': OSN_NS, '@xmlns:shar': OSN_SHARED_NS };
  if (notifications.length > 0) {
    response['OrderShipmentNotificationArray'] = { OrderShipmentNotification: notifications.map(notificationNode) };
  }
  return { GetOrderShipmentNotificationResponse: response };
}

const envelopeTree = (payload: XmlNode): XmlNode => ({ 'soap:Envelope': { '@xmlns:soap': SOAP_ENVELOPE_NS, 'soap:Body': payload } });

const xmlBuilder = new XMLBuilder({
  attributeNamePrefix: '@',
  textNodeName: '#',
  ignoreAttributes: false,
  suppressEmptyNode: true,
  // Escaping as the service's: the builder's own would leave characters XML cannot carry in place.
  processEntities: false,
  tagValueProcessor: (_name, value) => escapeText(String(value)),
});

const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

// ---- the run

interface Answer {
  label: string;
  /** The Body's content as the service writes it: at once, or as read (the shipment answer). */
  payload: BodyContent;
  tree: () => XmlNode;
}

/** The bytes of an answer written a chunk at a time, as the service sends them, in one buffer. */
async function collected(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const all: Buffer[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return Buffer.concat(all);
}

const renderers: Record<string, (answer: Answer) => Buffer | Promise<Buffer>> = {
  'the service\'s writer': (answer) => (typeof answer.payload === 'function' ? renderEnvelope(answer.payload) : collected(streamedEnvelope(answer.payload.streamed))),
  'fast-xml-parser XMLBuilder': (answer) => Buffer.from(DECLARATION + (xmlBuilder.build(envelopeTree(answer.tree())) as string)),
  xmlbuilder2: (answer) => Buffer.from(create({ version: '1.0', encoding: 'utf-8' }, envelopeTree(answer.tree())).end()),
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function bench(answer: Answer): Promise<void> {
  console.log(`\n${answer.label} (${ORDERS} purchase orders, median of ${RUNS} runs after 2 warm-ups; shaping and UTF-8 encoding included)`);
  const outputs: Buffer[] = [];
  for (const [name, render] of Object.entries(renderers)) {
    const times: number[] = [];
    const cpu: number[] = [];
    let out: Buffer = Buffer.alloc(0);
    for (let run = 0; run < RUNS + 2; run++) {
      const start = performance.now();
      const usage = process.cpuUsage();
      out = await render(answer);
      const used = process.cpuUsage(usage);
      if (run >= 2) {
        times.push(performance.now() - start);
        cpu.push((used.user + used.system) / 1000);
      }
    }
    outputs.push(out);
    console.log(`  ${name.padEnd(28)} ${median(times).toFixed(1).padStart(8)} ms (CPU ${median(cpu).toFixed(1)} ms, garbage collection included)   ${(out.length / 1024 / 1024).toFixed(2)} MiB`);
  }
  const same = outputs.every((o) => o.equals(outputs[0] as Buffer));
  console.log(`  same bytes from all: ${same ? 'yes' : 'NO'}`);
  // The bench checks that every builder writes the same bytes (docs/benchmarks.md): a difference fails it.
  if (!same) process.exitCode = 1;
}

const statusData = statuses();
const shipmentData = notifications();
/** The shipment answer read whole, as one batch (an answer read in batches comes as several). */
async function* shipmentsInOneBatch(): AsyncGenerator<ShipmentNotificationView[]> {
  yield shipmentData;
}
await bench({ label: 'GetOrderStatusDetailsResponse', payload: (out) => orderStatusDetailsPayload(statusData, out), tree: () => orderStatusTree(statusData) });
await bench({
  label: 'GetOrderShipmentNotificationResponse',
  payload: { streamed: (out) => shipmentNotificationPayloadAsRead(shipmentsInOneBatch(), out) },
  tree: () => shipmentNotificationTree(shipmentData),
});
