// SOAP requests as partners write them, and reading the answers (faults, the Body as parsed XML).
import { XMLParser } from 'fast-xml-parser';
import type { FastifyInstance } from 'fastify';
import { OSN_NS, OSN_SHARED_NS, OSS_NS } from '../../services/query/versions/1.0.0/namespaces.js';
import { OSN_V2_NS, OSN_V2_SHARED_NS, OSS_V2_NS, OSS_V2_SHARED_NS } from '../../services/query/versions/2.0.0/namespaces.js';

function elements(fields: Record<string, string | undefined>, prefix: string): string {
  return Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `<${prefix}${name}>${value}</${prefix}${name}>`)
    .join('');
}

export function envelope(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Header/><soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`;
}

/** An OSS request as typical clients write it (every field in the service namespace). */
export function statusDetailsRequest(fields: Record<string, string | undefined> = {}): string {
  const all = { wsVersion: '1.0.0', id: 'both', password: 'secret', queryType: '4', statusTimeStamp: '2024-01-01T00:00:00Z', ...fields };
  return envelope(`<ns:GetOrderStatusDetailsRequest xmlns:ns="${OSS_NS}">${elements(all, 'ns:')}</ns:GetOrderStatusDetailsRequest>`);
}

export function statusTypesRequest(fields: Record<string, string | undefined> = {}): string {
  const all = { wsVersion: '1.0.0', id: 'both', password: 'secret', ...fields };
  return envelope(`<ns:GetOrderStatusTypesRequest xmlns:ns="${OSS_NS}">${elements(all, 'ns:')}</ns:GetOrderStatusTypesRequest>`);
}

/** An OSN request as the schema has it: login fields in SharedObjects, the rest in the OSN namespace. */
export function shipmentRequest(fields: Record<string, string | undefined> = {}): string {
  const { wsVersion, id, password, ...rest } = { wsVersion: '1.0.0', id: 'both', password: 'secret', queryType: '3', shipmentDateTimeStamp: '2024-01-01T00:00:00Z', ...fields };
  const login = elements({ wsVersion, id, password }, 'shar:');
  return envelope(
    `<ns:GetOrderShipmentNotificationRequest xmlns:ns="${OSN_NS}" xmlns:shar="${OSN_SHARED_NS}">${login}${elements(rest, 'ns:')}</ns:GetOrderShipmentNotificationRequest>`,
  );
}

export const ORDER_STATUS_URL = '/api/promostandards/order-status';
export const SHIPMENT_URL = '/api/promostandards/order-shipment-notification';

export function post(app: FastifyInstance, url: string, payload: string | Buffer, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'text/xml; charset=utf-8', ...headers } });
}

/** faultcode and faultstring of a fault answer (undefined when the answer is no fault). */
export function faultOf(xml: string): { code: string; message: string } | undefined {
  const code = /<faultcode>([^<]*)<\/faultcode>/.exec(xml)?.[1];
  const message = /<faultstring>([^<]*)<\/faultstring>/.exec(xml)?.[1];
  return code === undefined || message === undefined ? undefined : { code, message };
}

/** A parsed XML element: child elements by local name (namespace prefixes removed), text as strings. */
export type XmlNode = Record<string, unknown>;

const answerParser = new XMLParser({
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (name) => ['OrderStatus', 'OrderStatusDetail', 'OrderShipmentNotification', 'SalesOrder', 'ShipmentLocation', 'Package'].includes(name),
});

/** The SOAP Body of an answer, its repeatable elements always as arrays. */
export function answerBody(xml: string): XmlNode {
  return (answerParser.parse(xml) as { Envelope: { Body: XmlNode } }).Envelope.Body;
}

/** A value that may be a list, as a list: absent or empty none, one (a single XML child) a list of it. */
export function arrayOf(value: unknown): XmlNode[] {
  return value === undefined || value === null || value === '' ? [] : Array.isArray(value) ? (value as XmlNode[]) : [value as XmlNode];
}

/** The items of an XArray: a JSON array, or the X children of a parsed SOAP element. */
export function items(node: XmlNode, wrapper: string, item: string): XmlNode[] {
  const value = node[wrapper];
  return Array.isArray(value) ? (value as XmlNode[]) : typeof value === 'object' && value !== null ? arrayOf((value as XmlNode)[item]) : [];
}

// ---- 2.0.0 (oss-osn-2.0.0.md)

export const ORDER_STATUS_V2_URL = '/api/promostandards/order-status/2.0.0';
export const SHIPMENT_V2_URL = '/api/promostandards/order-shipment-notification/2.0.0';

export type V2Operation = 'GetOrderStatusRequest' | 'GetIssueRequest' | 'GetServiceMethodsRequest';

/** The login every 2.0.0 request builder starts from (undefined fields are left out). */
export const V2_LOGIN = { wsVersion: '2.0.0', id: 'both', password: 'secret' };

/** An OSS 2.0.0 request as the XSD has it: the element in M, every field in SharedObjects. */
export function ossV2Request(operation: V2Operation, fields: Record<string, string | undefined> = {}): string {
  return envelope(`<ns:${operation} xmlns:ns="${OSS_V2_NS}" xmlns:shar="${OSS_V2_SHARED_NS}">${elements({ ...V2_LOGIN, ...fields }, 'shar:')}</ns:${operation}>`);
}

/** An OSN 2.0.0 request, its fields in SharedObjects (zeep, the XSD) or in M (node-soap 1.x). */
export function osnV2Request(fields: Record<string, string | undefined> = {}, fieldsIn: 'S' | 'M' = 'S'): string {
  const ns = fieldsIn === 'S' ? OSN_V2_SHARED_NS : OSN_V2_NS;
  return envelope(
    `<ns:GetOrderShipmentNotificationRequest xmlns:ns="${OSN_V2_NS}" xmlns:f="${ns}">${elements({ ...V2_LOGIN, ...fields }, 'f:')}</ns:GetOrderShipmentNotificationRequest>`,
  );
}

/** The ServiceMessages of a 2.0.0 answer (either service), in order. */
export function serviceMessagesOf(xml: string): Array<{ code: number; description: string; severity: string }> {
  const p = '(?:[A-Za-z0-9]+:)?';
  const pattern = new RegExp(`<${p}ServiceMessage\\b[^>]*><${p}code>([^<]*)</${p}code><${p}description>([^<]*)</${p}description><${p}severity>([^<]*)</${p}severity></${p}ServiceMessage>`, 'g');
  return [...xml.matchAll(pattern)].map((m) => ({
    code: Number(m[1]),
    description: (m[2] ?? '').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'),
    severity: m[3] ?? '',
  }));
}

// ---- OSN 2.1.0 (docs/design/osn-2.1.0.md)

export const SHIPMENT_V21_URL = '/api/promostandards/order-shipment-notification/2.1.0';
const OSN_V21_NS = 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.1.0/';

export type V21Operation = 'GetOrderShipmentNotificationRequest' | 'GetServiceMethodsRequest' | 'SendAdvanceShipmentNotificationRequest';

/** An OSN 2.1.0 request as the XSD has it: the element in M, every field in SharedObjects; `raw` is written after the fields as it is. */
export function osnV21Request(operation: V21Operation, fields: Record<string, string | undefined> = {}, raw = ''): string {
  return envelope(
    `<ns:${operation} xmlns:ns="${OSN_V21_NS}" xmlns:shar="${OSN_V21_NS}SharedObjects/">${elements({ ...V2_LOGIN, wsVersion: '2.1.0', ...fields }, 'shar:')}${raw}</ns:${operation}>`,
  );
}
