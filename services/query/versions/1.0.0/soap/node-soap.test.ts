// A real SOAP client (node-soap) reads the served WSDL over HTTP, calls every operation and
// parses the answers.
import Fastify, { type FastifyInstance } from 'fastify';
import soap from 'soap';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordChecksBusyError } from '../../../../domain/credentials/check-slots.js';
import { promoStandardsSoap } from './plugin.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups } from '../../../../../test/support/fake-ports.js';
import { FULL_STATUS, MINIMAL_STATUS, SHIPMENT } from '../../../../../test/fixtures/views.js';
import { ORDER_STATUS_URL, SHIPMENT_URL } from '../../../../../test/support/soap-requests.js';

let app: FastifyInstance;
let base: string;
const lookups = new FakeLookups();
const authenticator = new FakeAuthenticator(ACCOUNTS);
const LOGIN = { wsVersion: '1.0.0', id: 'both', password: 'secret' };

beforeAll(async () => {
  app = Fastify({ logger: false });
  // The port is known only after listen; the client is pointed at it with `endpoint`.
  await app.register(promoStandardsSoap, { publicBaseUrl: 'http://ossn.invalid', lookups, authenticator });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => app.close());

async function client(path: string): Promise<soap.Client> {
  return soap.createClientAsync(`${base}${path}?wsdl`, { endpoint: `${base}${path}` });
}

describe('node-soap', () => {
  it('reads the WSDL with its soap:address', async () => {
    const oss = await client(ORDER_STATUS_URL);
    const described = oss.describe() as Record<string, Record<string, Record<string, unknown>>>;
    expect(Object.keys(described['OrderStatusService']?.['OrderStatusServiceBinding'] ?? {})).toEqual(['getOrderStatusDetails', 'getOrderStatusTypes']);
    expect(oss.wsdl.toXML()).toContain(`location="http://ossn.invalid${ORDER_STATUS_URL}"`);
  });

  it('calls getOrderStatusDetails', async () => {
    lookups.statuses = [FULL_STATUS, MINIMAL_STATUS];
    const oss = await client(ORDER_STATUS_URL);
    // node-soap writes Date objects as empty elements, hence the string.
    const [result] = await oss.getOrderStatusDetailsAsync({ ...LOGIN, queryType: 1, referenceNumber: 'PO-1001', statusTimeStamp: '2025-01-01T00:00:00Z' });
    expect(lookups.statusCalls.at(-1)?.query).toEqual({ queryType: 1, referenceNumber: 'PO-1001' });
    const orders = result.OrderStatusArray.OrderStatus;
    expect(orders).toHaveLength(2);
    expect(orders[0].purchaseOrderNumber).toBe('PO-1001 <A&B>');
    const [first, second] = orders[0].OrderStatusDetailArray.OrderStatusDetail;
    expect(first).toMatchObject({ factoryOrderNumber: 'SO-1', statusID: 60, statusName: 'In Production', responseRequired: true });
    expect(new Date(first.validTimestamp).toISOString()).toBe('2025-02-20T08:15:00.000Z');
    expect(new Date(first.expectedDeliveryDate).toISOString()).toBe('2025-03-05T17:30:00.250Z');
    expect(second).toMatchObject({ factoryOrderNumber: 'SO-2', statusID: 99, responseRequired: false });
    expect(orders[1].OrderStatusDetailArray.OrderStatusDetail).toMatchObject([{ factoryOrderNumber: 'SO-3', statusID: 10 }]);
  });

  it('calls getOrderStatusDetails with no result', async () => {
    lookups.statuses = [];
    const oss = await client(ORDER_STATUS_URL);
    const [result] = await oss.getOrderStatusDetailsAsync({ ...LOGIN, queryType: 4, statusTimeStamp: '2025-01-01T00:00:00Z' });
    expect(result.OrderStatusArray ?? null).toBeNull();
  });

  it('calls getOrderStatusTypes', async () => {
    const oss = await client(ORDER_STATUS_URL);
    const [result] = await oss.getOrderStatusTypesAsync(LOGIN);
    expect(result.StatusArray.Status).toHaveLength(14);
    expect(result.StatusArray.Status[0]).toEqual({ id: 10, name: 'Order Received' });
    expect(result.StatusArray.Status[13]).toEqual({ id: 99, name: 'Canceled' });
  });

  it('calls getOrderShipmentNotification (login sent in the SharedObjects namespace)', async () => {
    lookups.notifications = [SHIPMENT];
    const osn = await client(SHIPMENT_URL);
    const [result] = await osn.getOrderShipmentNotificationAsync({ ...LOGIN, queryType: 3, shipmentDateTimeStamp: '2025-02-01T00:00:00Z' });
    expect(osn.lastRequest).toMatch(/<(\w+):id xmlns:\1="http:\/\/www\.promostandards\.org\/WSDL\/OrderShipmentNotificationService\/1\.0\.0\/SharedObjects\/">both</);
    expect(lookups.shipmentCalls.at(-1)?.query).toEqual({ queryType: 3, shipmentDateTimeStamp: new Date('2025-02-01T00:00:00Z') });
    const notification = result.OrderShipmentNotificationArray.OrderShipmentNotification[0];
    expect(notification).toMatchObject({ purchaseOrderNumber: 'PO-1001', complete: false });
    const [so1, so2] = notification.SalesOrderArray.SalesOrder;
    expect(so1.ShipmentLocationArray.ShipmentLocation).toHaveLength(2);
    const location = so1.ShipmentLocationArray.ShipmentLocation[0];
    expect(location.ShipToAddress).toEqual({
      address1: 'Acme & Sons',
      address2: 'Attn: Receiving',
      address3: 'Building 7',
      address4: 'Dock <3>',
      city: 'Chicago',
      region: 'IL',
      postalCode: '60601',
      country: 'US',
    });
    expect(location.shipmentDestinationType).toBe('Commercial');
    const pkg = location.PackageArray.Package[0];
    expect(pkg).toMatchObject({ id: 1, trackingNumber: '1Z999', dimUOM: 'Inches', weightUOM: 'Pounds', carrier: 'UPS', shipmentTerms: 'Prepaid' });
    expect(String(pkg.height)).toMatch(/^(0\.0000001|1e-7)$/);
    expect(pkg.ItemArray.Item).toHaveLength(2);
    expect(pkg.ItemArray.Item[0]).toMatchObject({ supplierProductId: 'P100', purchaseOrderLineNumber: '1' });
    expect(so2.salesOrderNumber).toBe('SO-2');
  });

  it('calls getOrderShipmentNotification with no result', async () => {
    lookups.notifications = [];
    const osn = await client(SHIPMENT_URL);
    const [result] = await osn.getOrderShipmentNotificationAsync({ ...LOGIN, queryType: 3, shipmentDateTimeStamp: '2025-02-01T00:00:00Z' });
    expect(result?.OrderShipmentNotificationArray).toBeUndefined();
  });

  it('receives faults', async () => {
    const osn = await client(SHIPMENT_URL);
    const error = await osn.getOrderShipmentNotificationAsync({ ...LOGIN, password: 'wrong', queryType: 1, referenceNumber: 'PO' }).catch((e: unknown) => e);
    expect((error as { root?: { Envelope: { Body: { Fault: unknown } } } }).root?.Envelope.Body.Fault).toEqual({
      faultcode: 'soap:Client',
      faultstring: 'Invalid id or password',
    });
  });

  it('receives a login refused as busy as a fault saying so, the 503 and its Retry-After at hand', async () => {
    const osn = await client(SHIPMENT_URL);
    authenticator.failure = new PasswordChecksBusyError();
    try {
      const error = (await osn.getOrderShipmentNotificationAsync({ ...LOGIN, queryType: 1, referenceNumber: 'PO' }).catch((e: unknown) => e)) as {
        root?: { Envelope: { Body: { Fault: unknown } } };
        response?: { status: number; headers: Record<string, string> };
      };
      expect(error.root?.Envelope.Body.Fault).toEqual({ faultcode: 'soap:Server', faultstring: 'Server busy — retry in a second' });
      expect(error.response?.status).toBe(503);
      expect(error.response?.headers['retry-after']).toBe('1');
    } finally {
      authenticator.failure = undefined;
    }
  });
});
