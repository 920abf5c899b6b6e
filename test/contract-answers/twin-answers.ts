// SOAP answers and their JSON twins in one comparable form: the fields JSON carries, text as the
// XML carries it (escaped, with U+FFFD for characters XML cannot hold, as xml-text.ts writes it),
// numbers as numbers, dates as instants, absent fields absent.
import { XMLParser } from 'fast-xml-parser';
import { escapeText } from '../../services/query/protocol/soap/xml-text.js';

type Node = Record<string, unknown>;

/** How one side's values read: SOAP elements hold text, JSON holds typed values. */
interface Side {
  text(value: unknown): string | undefined;
  number(value: unknown): number | undefined;
  boolean(value: unknown): boolean | undefined;
  time(value: unknown): number | undefined;
  /** The repeated elements under a node: SOAP wraps them in an array element, JSON lists them. */
  list(node: Node, soapPath: [string, string], jsonKey: string): Node[];
}

const present = (value: unknown) => value !== undefined;

const soap: Side = {
  text: (value) => (present(value) ? String(value) : undefined),
  number: (value) => (present(value) ? Number(value) : undefined),
  boolean: (value) => (present(value) ? value === 'true' : undefined),
  time: (value) => (present(value) ? Date.parse(String(value)) : undefined),
  list: (node, [wrapper, item]) => ((node[wrapper] as Node | undefined)?.[item] as Node[] | undefined) ?? [],
};

const json: Side = {
  text: (value) => (present(value) ? escapeText(String(value)) : undefined),
  number: (value) => (present(value) ? Number(value) : undefined),
  boolean: (value) => (present(value) ? Boolean(value) : undefined),
  time: (value) => (present(value) ? Date.parse(String(value)) : undefined),
  list: (node, _soapPath, jsonKey) => (node[jsonKey] as Node[] | undefined) ?? [],
};

/** Drops the absent fields, so that an absent field and one present on one side only differ. */
const defined = (node: Record<string, unknown>) => Object.fromEntries(Object.entries(node).filter(([, v]) => v !== undefined));

// Text exactly as sent (no trimming, no entity decoding); repeated elements always as arrays.
const parser = new XMLParser({
  removeNSPrefix: true,
  parseTagValue: false,
  processEntities: false,
  trimValues: false,
  isArray: (name) => ['OrderStatus', 'OrderStatusDetail', 'OrderShipmentNotification', 'SalesOrder', 'ShipmentLocation', 'Package'].includes(name),
});

function soapBody(xml: string, response: string): Node {
  const body = (parser.parse(xml) as { Envelope: { Body: Node } }).Envelope.Body;
  if (!(response in body)) throw new Error(`not a ${response}: ${xml.slice(0, 500)}`);
  return (body[response] as Node | '') || {};
}

function statusOrders(side: Side, orders: Node[]) {
  return orders.map((order) => ({
    purchaseOrderNumber: side.text(order['purchaseOrderNumber']),
    details: side.list(order, ['OrderStatusDetailArray', 'OrderStatusDetail'], 'details').map((d) =>
      defined({
        factoryOrderNumber: side.text(d['factoryOrderNumber']),
        statusID: side.number(d['statusID']),
        statusName: side.text(d['statusName']),
        expectedShipDate: side.time(d['expectedShipDate']),
        expectedDeliveryDate: side.time(d['expectedDeliveryDate']),
        responseRequired: side.boolean(d['responseRequired']),
        validTimestamp: side.time(d['validTimestamp']),
      }),
    ),
  }));
}

const address = (side: Side, a: Node) =>
  defined({
    address1: side.text(a['address1']),
    address2: side.text(a['address2']),
    city: side.text(a['city']),
    region: side.text(a['region']),
    postalCode: side.text(a['postalCode']),
    country: side.text(a['country']),
  });

function shipmentOrders(side: Side, notifications: Node[]) {
  return notifications.map((n) => ({
    purchaseOrderNumber: side.text(n['purchaseOrderNumber']),
    complete: side.boolean(n['complete']),
    salesOrders: side.list(n, ['SalesOrderArray', 'SalesOrder'], 'salesOrders').map((so) => ({
      salesOrderNumber: side.text(so['salesOrderNumber']),
      complete: side.boolean(so['complete']),
      locations: side.list(so, ['ShipmentLocationArray', 'ShipmentLocation'], 'locations').map((l) => ({
        id: side.number(l['id']),
        complete: side.boolean(l['complete']),
        shipFrom: address(side, (l['ShipFromAddress'] ?? l['shipFromAddress']) as Node),
        shipTo: address(side, (l['ShipToAddress'] ?? l['shipToAddress']) as Node),
        packages: side.list(l, ['PackageArray', 'Package'], 'packages').map((p) =>
          defined({
            id: side.number(p['id']),
            trackingNumber: side.text(p['trackingNumber']),
            shipmentDate: side.time(p['shipmentDate']),
            carrier: side.text(p['carrier']),
            shipmentMethod: side.text(p['shipmentMethod']),
            weight: side.number(p['weight']),
            weightUOM: side.text(p['weightUOM']),
          }),
        ),
      })),
    })),
  }));
}

export const soapStatusOrders = (xml: string) =>
  statusOrders(soap, soap.list(soapBody(xml, 'GetOrderStatusDetailsResponse'), ['OrderStatusArray', 'OrderStatus'], ''));

export const jsonStatusOrders = (body: { orders: Node[] }) => statusOrders(json, body.orders);

export const soapShipmentOrders = (xml: string) =>
  shipmentOrders(soap, soap.list(soapBody(xml, 'GetOrderShipmentNotificationResponse'), ['OrderShipmentNotificationArray', 'OrderShipmentNotification'], ''));

export const jsonShipmentOrders = (body: { shipments: Node[] }) => shipmentOrders(json, body.shipments);
