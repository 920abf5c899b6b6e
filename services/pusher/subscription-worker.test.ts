import { describe, expect, it } from 'vitest';
import type { ShipmentNotificationV2View } from '../../contracts/lookup-answers-v2.js';
import { scrub } from './push-request.js';
import { pictureDigest } from './subscription-worker.js';

describe('scrub', () => {
  it.each([
    ['every occurrence of the password', 'login pw1 refused (pw1)', 'pw1', 'login [redacted] refused ([redacted])'],
    ['the text as it is without a password', 'refused', undefined, 'refused'],
    ['the text as it is with an empty password', 'refused', '', 'refused'],
    ['nothing for no text', undefined, 'pw1', undefined],
  ] as const)('replaces %s', (_, text, secret, expected) => {
    expect(scrub(text, secret)).toBe(expected);
  });
});

describe('pictureDigest', () => {
  const address = { address1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701' };
  const view = (trackingNumber: string, complete = false): ShipmentNotificationV2View => ({
    purchaseOrderNumber: 'PO-1',
    complete,
    salesOrders: [{ salesOrderNumber: 'SO-1', complete, shipments: [{ id: 1, complete, shipFromAddress: address, shipToAddress: address, packages: [{ id: 1, trackingNumber, shipmentDate: new Date('2026-01-01T00:00:00Z') }] }] }],
  });

  it('is the same for the same picture and differs when anything shown differs', () => {
    expect(pictureDigest(view('1Z1'))).toBe(pictureDigest(view('1Z1')));
    expect(pictureDigest(view('1Z2'))).not.toBe(pictureDigest(view('1Z1')));
    expect(pictureDigest(view('1Z1', true))).not.toBe(pictureDigest(view('1Z1')));
  });
});
