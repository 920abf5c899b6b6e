import { describe, expect, it } from 'vitest';
import type { ErpEvent } from '../contracts/erp-events.js';
import {
  asV2,
  contactsRecorded,
  issueRecorded,
  linesRecorded,
  locationRecorded,
  packageShipped,
  sampleShipFrom,
  sampleShipTo,
  statusChanged,
} from '../test/fixtures/sample-events.js';
import { deepFreeze } from '../test/support/deep-freeze.js';
import { evolveShipments } from './shipments.js';
import type { ShipmentsState } from './state.js';

// The shipments read model under contract v2 (oss-osn-2.0.0.md §5, §6): v2's fields in place, and
// the order-detail events not applied.

function stateAfter(...events: ErpEvent[]): ShipmentsState {
  const state = events.reduce<ShipmentsState | undefined>((s, e) => deepFreeze(evolveShipments(s, e)), undefined);
  if (!state) throw new Error('no state');
  return state;
}

const v2ShipTo = { ...sampleShipTo, attentionTo: 'Receiving', companyName: 'Acme Promo', email: 'dock@acme.example', phone: '303-555-0100', regionV2: 'COL' };

describe('shipments v2: ShipmentLocationRecorded', () => {
  it('keeps customerPickup on the location and the address extras in the address', () => {
    const state = stateAfter(asV2(locationRecorded(1, 1, { customerPickup: true, shipTo: v2ShipTo })));
    expect(state.locations).toStrictEqual([{ locationId: 1, complete: false, customerPickup: true, shipFrom: sampleShipFrom, shipTo: v2ShipTo, packages: [] }]);
    expect(state.locations[0]?.shipTo).not.toBe(v2ShipTo);
  });

  it('replaces them with the location: absent when the next recording leaves them out', () => {
    const state = stateAfter(asV2(locationRecorded(1, 1, { customerPickup: false, shipTo: v2ShipTo })), locationRecorded(2, 1));
    expect(state.locations[0]).not.toHaveProperty('customerPickup');
    expect(state.locations[0]?.shipTo).toStrictEqual(sampleShipTo);
  });
});

describe('shipments v2: PackageShipped', () => {
  it('keeps carrierService, preProductionProof and each item uom on the package', () => {
    const state = stateAfter(
      locationRecorded(1, 1),
      asV2(packageShipped(2, 1, 1, { carrier: 'UPS', carrierService: 'Ground Saver', preProductionProof: 'Yes', items: [{ supplierProductId: 'PC61', quantity: 2, uom: 'DZ' }, { quantity: 3 }] })),
    );
    expect(state.locations[0]?.packages).toStrictEqual([
      {
        packageId: 1,
        trackingNumber: '1Z999AA10123456781',
        shipmentDate: new Date('2025-05-02T15:30:00Z'),
        carrier: 'UPS',
        carrierService: 'Ground Saver',
        preProductionProof: 'Yes',
        items: [{ supplierProductId: 'PC61', quantity: 2, uom: 'DZ' }, { quantity: 3 }],
      },
    ]);
  });
});

describe('shipments v2: PackageShipped.shipReferences (OSN 2.1.0)', () => {
  const shipped = (sequence: number, shipReferences?: string[]) => asV2(packageShipped(sequence, 1, 1, shipReferences ? { shipReferences } : {}));
  const referencesAfter = (...events: ErpEvent[]) => stateAfter(locationRecorded(1, 1), ...events).locations[0]?.packages[0]?.shipReferences;

  it('keeps them on the package, in the order sent, not the event’s own array', () => {
    const sent = ['PO 4711', 'Dept 12'];
    const event = shipped(2, sent);
    const state = stateAfter(locationRecorded(1, 1), event);
    expect(state.locations[0]?.packages[0]?.shipReferences).toStrictEqual(sent);
    expect(state.locations[0]?.packages[0]?.shipReferences).not.toBe(event.type === 'PackageShipped' && event.data.shipReferences);
  });

  it('keeps none for an empty list or none sent', () => {
    expect(stateAfter(locationRecorded(1, 1), shipped(2, [])).locations[0]?.packages[0]).not.toHaveProperty('shipReferences');
    expect(stateAfter(locationRecorded(1, 1), shipped(2)).locations[0]?.packages[0]).not.toHaveProperty('shipReferences');
  });

  it('replaces them when the package is sent again: other references, fewer, or none', () => {
    expect(referencesAfter(shipped(2, ['A', 'B']), shipped(3, ['C']))).toStrictEqual(['C']);
    expect(referencesAfter(shipped(2, ['A', 'B']), shipped(3, []))).toBeUndefined();
    expect(referencesAfter(shipped(2, ['A', 'B']), packageShipped(3, 1, 1))).toBeUndefined();
    expect(referencesAfter(shipped(2), shipped(3, ['A']))).toStrictEqual(['A']);
  });
});

describe('shipments v2: order-detail events', () => {
  const state = stateAfter(statusChanged(1), locationRecorded(2, 1));

  it.each([
    ['IssueRecorded', issueRecorded(3)],
    ['SalesOrderLinesRecorded', linesRecorded(3, [])],
    ['OrderContactsRecorded', contactsRecorded(3, [])],
  ] as const)('ignores a %s without advancing its sequence', (_, event) => {
    expect(evolveShipments(state, event)).toBe(state);
    expect(evolveShipments(undefined, event)).toBeUndefined();
  });

  it('so a later shipment event at any higher sequence still applies', () => {
    const after = [issueRecorded(3), linesRecorded(4, [])].reduce<ShipmentsState | undefined>(evolveShipments, state);
    expect(evolveShipments(after, packageShipped(5, 1, 1))?.sequence).toBe(5);
  });
});
