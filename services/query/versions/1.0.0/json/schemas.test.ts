// The response schemas write exactly the bodies service.md lists: unknown properties are dropped,
// absent optional ones stay absent (never null), dates are ISO 8601 strings.
import Fastify from 'fastify';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { FULL_STATUS, MINIMAL_STATUS, SHIPMENT } from '../../../../../test/fixtures/views.js';
import { orderStatusBody, shipmentsBody } from './schemas.js';
import { buildJsonTestApp, type TestApp } from '../../../../../test/support/test-apps.js';
import { get, SHIPMENTS_URL, STATUS_URL } from '../../../../../test/support/json-requests.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildJsonTestApp();
});
afterAll(() => t.app.close());
beforeEach(() => {
  t.lookups.statuses = [];
  t.lookups.notifications = [];
});

it('writes every status field when known, and only the required ones otherwise', async () => {
  t.lookups.statuses = [FULL_STATUS, MINIMAL_STATUS];
  const res = await get(t.app, `${STATUS_URL}?queryType=4`);
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.json()).toEqual({
    orders: [
      {
        purchaseOrderNumber: 'PO-1001 <A&B>',
        details: [
          {
            factoryOrderNumber: 'SO-1',
            statusID: 60,
            statusName: 'In Production',
            expectedShipDate: '2025-03-01T00:00:00.000Z',
            expectedDeliveryDate: '2025-03-05T17:30:00.250Z',
            responseRequired: true,
            validTimestamp: '2025-02-20T08:15:00.000Z',
          },
          { factoryOrderNumber: 'SO-2', statusID: 99, statusName: 'Canceled', responseRequired: false, validTimestamp: '2025-02-21T00:00:00.000Z' },
        ],
      },
      { purchaseOrderNumber: 'PO-2', details: [{ factoryOrderNumber: 'SO-3', statusID: 10, validTimestamp: '2025-01-01T00:00:00.000Z' }] },
    ],
  });
  expect(res.body).not.toContain('null');
});

it('drops properties the status body does not list', async () => {
  const detail = { ...MINIMAL_STATUS.details[0], additionalExplanation: 'x', ResponseToArray: [], clientId: 'C1', changedAt: new Date() };
  t.lookups.statuses = [{ purchaseOrderNumber: 'PO-2', details: [detail], clientId: 'C1', errorMessage: 'x' } as never];
  expect(JSON.parse((await get(t.app, `${STATUS_URL}?queryType=4`)).body)).toEqual({
    orders: [{ purchaseOrderNumber: 'PO-2', details: [{ factoryOrderNumber: 'SO-3', statusID: 10, validTimestamp: '2025-01-01T00:00:00.000Z' }] }],
  });
});

it('writes shipments without address3/4, destination type, dimensions, accounts, terms or items', async () => {
  t.lookups.notifications = [{ ...SHIPMENT, extra: 1 } as never];
  const body = (await get(t.app, `${SHIPMENTS_URL}?queryType=1&referenceNumber=PO-1001`)).json();
  const [so1, so2] = body.shipments[0].salesOrders;
  expect(Object.keys(body.shipments[0]).sort()).toEqual(['complete', 'purchaseOrderNumber', 'salesOrders']);
  expect(so1.locations[0]).toEqual({
    id: 1,
    complete: true,
    shipFromAddress: { address1: '1 Factory Rd', city: 'Dallas', region: 'TX', postalCode: '75001', country: 'US' },
    shipToAddress: { address1: 'Acme & Sons', address2: 'Attn: Receiving', city: 'Chicago', region: 'IL', postalCode: '60601', country: 'US' },
    packages: [
      { id: 1, trackingNumber: '1Z999', shipmentDate: '2025-02-01T12:00:00.000Z', carrier: 'UPS', shipmentMethod: 'Ground', weight: 1e21, weightUOM: 'Pounds' },
      { trackingNumber: '1Z998', shipmentDate: '2025-02-02T00:00:00.000Z' },
    ],
  });
  expect(so1.locations[1]).toEqual({
    id: 2,
    complete: false,
    shipFromAddress: { address1: '1 Factory Rd', city: 'Dallas', region: 'TX', postalCode: '75001' },
    shipToAddress: { address1: '9 Elm St', city: 'Austin', region: 'TX', postalCode: '73301' },
    packages: [],
  });
  expect(so2).toEqual({
    salesOrderNumber: 'SO-2',
    complete: false,
    locations: [
      {
        id: 1,
        complete: false,
        shipFromAddress: { address1: 'A', city: 'B', region: 'CA', postalCode: '90001' },
        shipToAddress: { address1: 'C', city: 'D', region: 'CA', postalCode: '90002' },
        packages: [{ id: 3, trackingNumber: 'T3', shipmentDate: '2025-02-03T00:00:00.000Z' }],
      },
    ],
  });
});

it('answers empty results as empty lists', async () => {
  expect((await get(t.app, `${STATUS_URL}?queryType=4`)).json()).toEqual({ orders: [] });
  expect((await get(t.app, `${SHIPMENTS_URL}?queryType=1&referenceNumber=none`)).json()).toEqual({ shipments: [] });
});

it('writes a large answer, element by element, byte for byte as the whole body’s schema writes it', async () => {
  // The routes serialize their answers element by element (answer-body.ts); a route answering the
  // whole object through its response schema is the reference.
  const statuses = Array.from({ length: 3_000 }, (_, i) => ({ ...FULL_STATUS, purchaseOrderNumber: `PO-${i} "é€😀"\n`, extra: i }));
  const notifications = Array.from({ length: 700 }, (_, i) => ({ ...SHIPMENT, purchaseOrderNumber: `PO-${i} <ü>` }));
  const reference = Fastify({ logger: false });
  reference.get('/status', { schema: { response: { 200: orderStatusBody } } }, async () => ({ orders: statuses }));
  reference.get('/shipments', { schema: { response: { 200: shipmentsBody } } }, async () => ({ shipments: notifications }));
  try {
    t.lookups.statuses = statuses as never;
    t.lookups.notifications = notifications;
    const status = await get(t.app, `${STATUS_URL}?queryType=4`);
    expect(status.rawPayload.equals((await reference.inject('/status')).rawPayload)).toBe(true);
    expect(status.rawPayload.length).toBeGreaterThan(1024 * 1024);
    const shipments = await get(t.app, `${SHIPMENTS_URL}?queryType=1&referenceNumber=PO-1`);
    expect(shipments.rawPayload.equals((await reference.inject('/shipments')).rawPayload)).toBe(true);
  } finally {
    await reference.close();
  }
});
