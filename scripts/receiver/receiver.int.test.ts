// The receiver to try push with (scripts/receiver/receiver.ts), over real sockets: built from the
// official 2.1.0 WSDL, it accepts a notification ossn writes, refuses a wrong login, and misbehaves
// as it is told, as the push fault tests need it to.
import { afterEach, describe, expect, it } from 'vitest';
import type { ShipmentNotificationV2View } from '../../contracts/lookup-answers-v2.js';
import { advanceShipmentNotificationRequest } from '../../services/query/versions/2.1.0/osn/advance-shipment-notification.js';
import { startReceiver, type Behaviour, type Receiver } from './receiver.js';

const address = { address1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701' };
const view: ShipmentNotificationV2View = {
  purchaseOrderNumber: 'PO-9',
  complete: false,
  salesOrders: [
    {
      salesOrderNumber: 'SO-9',
      complete: false,
      shipments: [{ id: 1, complete: true, shipFromAddress: address, shipToAddress: address, packages: [{ id: 1, trackingNumber: '1Z9', shipmentDate: new Date('2025-03-04T00:00:00Z'), shipReferences: ['CTN 1'] }] }],
    },
  ],
};

let receiver: Receiver | undefined;
afterEach(async () => receiver?.close());

async function start(behaviour: Behaviour): Promise<Receiver> {
  receiver = await startReceiver({ login: { id: 'ossn', password: 'receiver-pw' }, behaviour: () => behaviour, slowMs: 300 });
  return receiver;
}

const send = (url: string, password: string, timeoutMs = 5_000) =>
  fetch(url, {
    method: 'POST',
    body: advanceShipmentNotificationRequest(view, { id: 'ossn', password }, () => undefined),
    headers: { 'content-type': 'text/xml; charset=utf-8', SOAPAction: 'sendAdvanceShipmentNotification' },
    signal: AbortSignal.timeout(timeoutMs),
  });

describe('the trial receiver', () => {
  it('accepts a notification ossn writes: a transactionId, the notification kept as sent', async () => {
    const r = await start('accept');
    const res = await send(r.url, 'receiver-pw');
    const body = await res.text();
    expect(res.status).toBe(200);
    const transactionId = /<transactionId>([^<]+)<\/transactionId>/.exec(body)?.[1];
    expect(r.accepted.map((a) => a.transactionId)).toEqual([transactionId]);
    expect(r.accepted[0]?.notification['purchaseOrderNumber']).toBe('PO-9');
  });

  it('refuses a wrong password with the Error 105 and keeps nothing', async () => {
    const r = await start('accept');
    const body = await (await send(r.url, 'wrong')).text();
    expect(body).toContain('<code>105</code>');
    expect(r.accepted).toEqual([]);
  });

  it('answers as told: a ServiceMessage Error, 503 with Retry-After, slowly, or not at all', async () => {
    const error = await start('error-message');
    expect(await (await send(error.url, 'receiver-pw')).text()).toMatch(/<code>999<\/code>.*<severity>Error<\/severity>/);
    expect(error.accepted).toEqual([]);
    await error.close();

    const unavailable = await start('unavailable');
    const res = await send(unavailable.url, 'receiver-pw');
    expect([res.status, res.headers.get('retry-after')]).toEqual([503, '1']);
    await unavailable.close();

    const slow = await start('slow');
    const began = Date.now();
    expect((await send(slow.url, 'receiver-pw')).status).toBe(200);
    expect(Date.now() - began).toBeGreaterThanOrEqual(250);
    await slow.close();

    const silent = await start('no-answer');
    await expect(send(silent.url, 'receiver-pw', 500)).rejects.toThrow(/timeout|aborted/i);
    expect(silent.requests).toBe(1);
    expect(silent.accepted).toEqual([]);
  });

  it('serves its WSDL, the official 2.1.0 one, with its own address', async () => {
    const r = await start('accept');
    const wsdl = await (await fetch(`${r.url}?wsdl`)).text();
    expect(wsdl).toContain('name="OrderShipmentNotification_v2_1_0"');
    expect(wsdl).toContain(`<soap:address location="${r.url}"/>`);
  });
});
