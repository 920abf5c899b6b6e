// In-memory ports and request texts for the SOAP tests (no MongoDB involved).
import { XMLParser } from 'fast-xml-parser';
import Fastify, { type FastifyInstance } from 'fastify';
import type { OrderLookups, ShipmentQuery, StatusQuery } from '../../../contracts/lookups.js';
import type { Authenticator, Credential, ReserveLogin } from '../../domain/credentials/credential.js';
import type { OrderStatusView, ShipmentNotificationView } from '../../../contracts/lookup-answers.js';
import { OSN_NS, OSN_SHARED_NS, OSS_NS } from './namespaces.js';
import type { BeforeOperation } from './operations.js';
import { promoStandardsSoap } from './plugin.js';

export const BASE_URL = 'https://partners.example.com';

export class FakeLookups implements OrderLookups {
  statuses: OrderStatusView[] = [];
  notifications: ShipmentNotificationView[] = [];
  failure: Error | undefined;
  readonly statusCalls: Array<{ clientIds: string[]; query: StatusQuery }> = [];
  readonly shipmentCalls: Array<{ clientIds: string[]; query: ShipmentQuery }> = [];

  async orderStatus(clientIds: string[], query: StatusQuery): Promise<OrderStatusView[]> {
    this.statusCalls.push({ clientIds, query });
    if (this.failure) throw this.failure;
    return this.statuses;
  }

  async shipmentNotifications(clientIds: string[], query: ShipmentQuery): Promise<ShipmentNotificationView[]> {
    this.shipmentCalls.push({ clientIds, query });
    if (this.failure) throw this.failure;
    return this.notifications;
  }
}

export class FakeAuthenticator implements Authenticator {
  readonly calls: Array<{ id: string; password: string }> = [];
  constructor(private readonly accounts: Record<string, { password: string; credential: Credential }>) {}

  async verify(id: string, password: string, reserve?: ReserveLogin): Promise<Credential | undefined> {
    const giveBack = await reserve?.(id);
    this.calls.push({ id, password });
    const account = this.accounts[id];
    const credential = account && account.password === password ? account.credential : undefined;
    if (credential) giveBack?.();
    return credential;
  }
}

export const ACCOUNTS = {
  both: { password: 'secret', credential: { id: 'both', scopes: ['order_status', 'osn'], clientIds: ['C1', 'C2'] } },
  statusOnly: { password: 'secret', credential: { id: 'statusOnly', scopes: ['order_status'], clientIds: ['C1'] } },
  osnOnly: { password: 'secret', credential: { id: 'osnOnly', scopes: ['osn'], clientIds: ['C1'] } },
} satisfies Record<string, { password: string; credential: Credential }>;

export interface TestApp {
  app: FastifyInstance;
  lookups: FakeLookups;
  authenticator: FakeAuthenticator;
}

export async function buildTestApp(beforeOperation?: BeforeOperation): Promise<TestApp> {
  const lookups = new FakeLookups();
  const authenticator = new FakeAuthenticator(ACCOUNTS);
  const app = Fastify({ logger: false });
  await app.register(promoStandardsSoap, { publicBaseUrl: BASE_URL, lookups, authenticator, ...(beforeOperation ? { beforeOperation } : {}) });
  await app.ready();
  return { app, lookups, authenticator };
}

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

export const at = (iso: string): Date => new Date(iso);

/** Every optional field of OrderStatusDetail set. */
export const FULL_STATUS: OrderStatusView = {
  purchaseOrderNumber: 'PO-1001 <A&B>',
  details: [
    {
      factoryOrderNumber: 'SO-1',
      statusID: 60,
      statusName: 'In Production',
      expectedShipDate: at('2025-03-01T00:00:00Z'),
      expectedDeliveryDate: at('2025-03-05T17:30:00.250Z'),
      responseRequired: true,
      validTimestamp: at('2025-02-20T08:15:00Z'),
    },
    { factoryOrderNumber: 'SO-2', statusID: 99, statusName: 'Canceled', responseRequired: false, validTimestamp: at('2025-02-21T00:00:00Z') },
  ],
};

export const MINIMAL_STATUS: OrderStatusView = {
  purchaseOrderNumber: 'PO-2',
  details: [{ factoryOrderNumber: 'SO-3', statusID: 10, validTimestamp: at('2025-01-01T00:00:00Z') }],
};

export const SHIPMENT: ShipmentNotificationView = {
  purchaseOrderNumber: 'PO-1001',
  complete: false,
  salesOrders: [
    {
      salesOrderNumber: 'SO-1',
      complete: true,
      locations: [
        {
          id: 1,
          complete: true,
          shipFromAddress: { address1: '1 Factory Rd', city: 'Dallas', region: 'TX', postalCode: '75001', country: 'US' },
          shipToAddress: {
            address1: 'Acme & Sons',
            address2: 'Attn: Receiving',
            address3: 'Building 7',
            address4: 'Dock <3>',
            city: 'Chicago',
            region: 'IL',
            postalCode: '60601',
            country: 'US',
          },
          shipmentDestinationType: 'Commercial',
          packages: [
            {
              id: 1,
              trackingNumber: '1Z999',
              shipmentDate: at('2025-02-01T12:00:00Z'),
              dimUOM: 'Inches',
              length: 12,
              width: 10.5,
              height: 0.0000001,
              weightUOM: 'Pounds',
              weight: 1e21,
              carrier: 'UPS',
              shipmentMethod: 'Ground',
              shippingAccount: 'ACC-9',
              shipmentTerms: 'Prepaid',
              items: [
                {
                  supplierProductId: 'P100',
                  supplierPartId: 'P100-RED',
                  distributorProductId: 'D1',
                  distributorPartId: 'D1-R',
                  purchaseOrderLineNumber: '1',
                  quantity: 24,
                },
                { supplierProductId: 'P200', quantity: 2.5 },
              ],
            },
            { trackingNumber: '1Z998', shipmentDate: at('2025-02-02T00:00:00Z') },
          ],
        },
        {
          id: 2,
          complete: false,
          shipFromAddress: { address1: '1 Factory Rd', city: 'Dallas', region: 'TX', postalCode: '75001' },
          shipToAddress: { address1: '9 Elm St', city: 'Austin', region: 'TX', postalCode: '73301' },
          packages: [],
        },
      ],
    },
    {
      salesOrderNumber: 'SO-2',
      complete: false,
      locations: [
        {
          id: 1,
          complete: false,
          shipFromAddress: { address1: 'A', city: 'B', region: 'CA', postalCode: '90001' },
          shipToAddress: { address1: 'C', city: 'D', region: 'CA', postalCode: '90002' },
          shipmentDestinationType: 'Residential',
          packages: [{ id: 3, trackingNumber: 'T3', shipmentDate: at('2025-02-03T00:00:00Z'), items: [] }],
        },
      ],
    },
  ],
};

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
