// Generic SOAP clients against the OSN 2.1.0 endpoint of the real app, end to end
// (docs/design/osn-2.1.0.md §1): zeep 4.3.3 (strict) loads the served 2.1.0 WSDL, calls each
// operation and parses each answer, which must hold what the real MongoDB lookups find; node-soap
// does the same its own way. The data set is the demo one (contract v2).
import { randomBytes } from 'node:crypto';
import soap from 'soap';
import { beforeAll, describe, expect, it } from 'vitest';
import { readWhole, type ShipmentQuery } from '../../contracts/lookups.js';
import { callZeep, type ZeepOutcome } from '../../scripts/python/zeep-client.js';
import { ensurePythonVenv } from '../../scripts/python/venv.js';
import { SHIPMENT_NOTIFICATION_V21_PATH } from '../../services/query/versions/2.1.0/soap/plugin.js';
import { useDemoApp } from './demo-app.js';

const LINKED = ['CLIENT-001', 'CLIENT-002'];
const PARTNER = { id: 'partner-v21-clients', password: randomBytes(12).toString('base64url') };
const LOGIN = { wsVersion: '2.1.0', id: PARTNER.id, password: PARTNER.password };

const demo = useDemoApp('v21-clients', { seed: 20_261_204, partner: PARTNER, clientIds: LINKED });
const wsdl = () => `${demo.url}${SHIPMENT_NOTIFICATION_V21_PATH}?wsdl`;

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] => (value === null || value === undefined ? [] : Array.isArray(value) ? (value as Json[]) : [value as Json]);
const inner = (value: unknown, item: string): Json[] => list((value as Json | null | undefined)?.[item]);
const poOf = (answer: unknown) => inner((answer as Json)['OrderShipmentNotificationArray'], 'OrderShipmentNotification').map((n) => n['purchaseOrderNumber']);
const messagesOf = (answer: unknown) => inner((answer as Json)['ServiceMessageArray'], 'ServiceMessage').map((m) => [m['code'], m['severity']]);

function shipped() {
  const s = [...demo.folded.shipments.values()].find((x) => LINKED.includes(x.clientId) && x.purchaseOrderNumber !== undefined && x.locations.some((l) => l.packages.length > 0));
  if (!s?.purchaseOrderNumber) throw new Error('the demo data set has no shipped purchase order');
  return { po: s.purchaseOrderNumber, so: s.salesOrderNumber };
}

async function expectedShipments(query: ShipmentQuery) {
  return (await readWhole(await demo.lookups.shipmentNotificationV2Batches(LINKED, query))).orders.map((o) => o.purchaseOrderNumber);
}

describe('zeep 4.3.3 (strict) against the OSN 2.1.0 endpoint of the real app', () => {
  let python: string;

  beforeAll(async () => {
    python = await ensurePythonVenv();
  }, 900_000);

  const answerOf = (outcome: ZeepOutcome): unknown => {
    if ('fault' in outcome) throw new Error(`zeep got a fault: ${outcome.fault.faultcode} ${outcome.fault.faultstring}`);
    return outcome.answer;
  };

  it.each([
    ['1, a shipped purchase order', () => ({ queryType: 1, referenceNumber: shipped().po }), (): ShipmentQuery => ({ queryType: 1, referenceNumber: shipped().po })],
    ['2, its sales order', () => ({ queryType: 2, referenceNumber: shipped().so }), (): ShipmentQuery => ({ queryType: 2, referenceNumber: shipped().so })],
    [
      '3, since before the data was written',
      () => ({ queryType: 3, shipmentDateTimestamp: demo.seededFrom.toISOString() }),
      (): ShipmentQuery => ({ queryType: 3, shipmentDateTimeStamp: demo.seededFrom }),
    ],
  ])('getOrderShipmentNotification queryType %s: the lookups’ purchase orders', async (_name, args, query) => {
    const expected = await expectedShipments(query());
    expect(expected.length).toBeGreaterThan(0);
    const answer = answerOf(await callZeep(python, wsdl(), 'getOrderShipmentNotification', { ...LOGIN, ...args() }));
    expect(poOf(answer)).toEqual(expected);
    expect(messagesOf(answer)).toEqual([]);
  });

  it('getOrderShipmentNotification of another client’s or no purchase order: 130 Information', async () => {
    const answer = answerOf(await callZeep(python, wsdl(), 'getOrderShipmentNotification', { ...LOGIN, queryType: 1, referenceNumber: 'PO-NOBODY' }));
    expect(messagesOf(answer)).toEqual([[130, 'Information']]);
  });

  it('getServiceMethods: the two operations a credential without a push subscription can use', async () => {
    const answer = answerOf(await callZeep(python, wsdl(), 'getServiceMethods', LOGIN)) as Json;
    expect(answer['ServiceMethodArray']).toEqual({ serviceMethod: ['getOrderShipmentNotification', 'getServiceMethods'] });
  });

  it('sendAdvanceShipmentNotification as zeep builds it from the WSDL: 125 in the answer', async () => {
    const address = { address1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701' };
    const shipment = {
      destinationShippedInFull: false,
      customerPickup: false,
      shipFromAddress: address,
      shipToAddress: address,
      PackageArray: { Package: [{ shipmentDate: '2025-03-04T05:06:07Z', preProductionProof: 'Unknown', shipReferences: ['CARTON 1'] }] },
    };
    const notification = { purchaseOrderNumber: 'PO-1', purchaseOrderShippedInFull: false, ShipmentArray: { Shipment: [shipment] } };
    const answer = answerOf(await callZeep(python, wsdl(), 'sendAdvanceShipmentNotification', { ...LOGIN, AdvanceShipmentNotification: notification }));
    expect(messagesOf(answer)).toEqual([[125, 'Error']]);
  });
});

describe('node-soap against the OSN 2.1.0 endpoint', () => {
  it('reads the served WSDL, sends its request, parses the answer', async () => {
    const osn = await soap.createClientAsync(wsdl());
    const { po } = shipped();
    const [answer] = (await osn.getOrderShipmentNotificationAsync({ ...LOGIN, queryType: 1, referenceNumber: po })) as [unknown];
    expect(osn.lastEndpoint).toBe(`${demo.url}${SHIPMENT_NOTIFICATION_V21_PATH}`);
    expect(poOf(answer)).toEqual(await expectedShipments({ queryType: 1, referenceNumber: po }));
  });
});
