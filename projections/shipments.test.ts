import { describe, expect, it } from 'vitest';
import type { ErpEvent } from '../contracts/erp-events.js';
import { locationRecorded, packageShipped, packageVoided, sampleShipFrom, sampleShipTo, shipmentCompleted, statusChanged } from '../test/fixtures/sample-events.js';
import { deepFreeze } from '../test/support/deep-freeze.js';
import { EventRejectedError } from './event-rejected.js';
import { evolveShipments } from './shipments.js';
import type { ShipmentsState } from './state.js';

/** The state after `events`, frozen so that any later mutation by the projection would throw. */
function stateAfter(...events: ErpEvent[]): ShipmentsState {
  const state = events.reduce<ShipmentsState | undefined>(evolveShipments, undefined);
  if (!state) throw new Error('no state');
  return deepFreeze(state);
}

const packageIds = (state: ShipmentsState | undefined, locationId: number) =>
  state?.locations.find((l) => l.locationId === locationId)?.packages.map((p) => p.packageId);

const rejection = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof EventRejectedError) return error.reason;
    throw error;
  }
  throw new Error('expected a rejection');
};

describe('shipments: SalesOrderStatusChanged', () => {
  it('creates the state with the purchase order number and no locations', () => {
    expect(evolveShipments(undefined, statusChanged(1))).toStrictEqual({
      clientId: 'C1',
      salesOrderNumber: 'SO-9',
      sequence: 1,
      purchaseOrderNumber: 'PO-1',
      completedAsWhole: false,
      complete: false,
      locations: [],
    });
  });

  it('creates the state for a sales order without purchase order number too', () => {
    const state = evolveShipments(undefined, statusChanged(1, { statusId: 10 }));
    expect(state).toMatchObject({ sequence: 1, locations: [] });
    expect(state).not.toHaveProperty('purchaseOrderNumber');
  });

  it('changes nothing else, and nothing at all when the number is the same', () => {
    const state = stateAfter(statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1));
    expect(evolveShipments(state, statusChanged(4, { purchaseOrderNumber: 'PO-1', statusId: 60 }))).toBe(state);
    const moved = evolveShipments(state, statusChanged(5, { purchaseOrderNumber: 'PO-2', statusId: 60 }));
    expect(moved).toStrictEqual({ ...state, purchaseOrderNumber: 'PO-2', sequence: 5 });
    const dropped = evolveShipments(state, statusChanged(6, { statusId: 60 }));
    expect(dropped).not.toHaveProperty('purchaseOrderNumber');
    expect(dropped?.locations).toBe(state.locations);
  });
});

describe('shipments: ShipmentLocationRecorded', () => {
  it('creates the state and the location, incomplete and without packages', () => {
    const state = evolveShipments(undefined, locationRecorded(1, 2, { shipmentDestinationType: 'Commercial' }));
    expect(state).toStrictEqual({
      clientId: 'C1',
      salesOrderNumber: 'SO-9',
      sequence: 1,
      completedAsWhole: false,
      complete: false,
      locations: [{ locationId: 2, complete: false, shipFrom: sampleShipFrom, shipTo: sampleShipTo, shipmentDestinationType: 'Commercial', packages: [] }],
    });
    expect(state?.locations[0]?.shipTo).not.toBe(sampleShipTo);
  });

  it('keeps locations in locationId order', () => {
    const state = stateAfter(locationRecorded(1, 3), locationRecorded(2, 1), locationRecorded(3, 2));
    expect(state.locations.map((l) => l.locationId)).toEqual([1, 2, 3]);
  });

  it('replaces addresses and destination type, and keeps packages and the complete flag', () => {
    const state = stateAfter(locationRecorded(1, 1, { shipmentDestinationType: 'Residential' }), packageShipped(2, 1, 1), shipmentCompleted(3, 1));
    const newShipTo = { address1: '9 Elm St', city: 'Boise', region: 'ID', postalCode: '83702-1234' };
    const next = evolveShipments(state, locationRecorded(4, 1, { shipTo: newShipTo }));
    const [location] = next?.locations ?? [];
    const { shipmentDestinationType: _gone, ...kept } = state.locations[0] ?? {};
    expect(location).toStrictEqual({ ...kept, shipTo: newShipTo });
    expect(location?.packages).toBe(state.locations[0]?.packages);
    expect(next?.complete).toBe(true);
  });
});

describe('shipments: PackageShipped', () => {
  it('adds a package with its dates as Date objects and absent fields absent', () => {
    const state = evolveShipments(stateAfter(locationRecorded(1, 1)), packageShipped(2, 1, 1, { carrier: 'UPS', items: [{ supplierPartId: 'PC61-L', quantity: 12 }] }));
    expect(state?.locations[0]?.packages).toStrictEqual([
      { packageId: 1, trackingNumber: '1Z999AA10123456781', shipmentDate: new Date('2025-05-02T15:30:00Z'), carrier: 'UPS', items: [{ supplierPartId: 'PC61-L', quantity: 12 }] },
    ]);
    expect(state?.sequence).toBe(2);
  });

  it('keeps packages in packageId order and replaces one shipped again', () => {
    const state = stateAfter(locationRecorded(1, 1), packageShipped(2, 1, 3), packageShipped(3, 1, 1), packageShipped(4, 1, 2));
    expect(packageIds(state, 1)).toEqual([1, 2, 3]);
    const next = evolveShipments(state, packageShipped(5, 1, 2, { trackingNumber: 'NEW' }));
    expect(packageIds(next, 1)).toEqual([1, 2, 3]);
    expect(next?.locations[0]?.packages[1]?.trackingNumber).toBe('NEW');
  });

  it('leaves other locations as they were', () => {
    const state = stateAfter(locationRecorded(1, 1), locationRecorded(2, 2));
    const next = evolveShipments(state, packageShipped(3, 2, 1));
    expect(next?.locations[0]).toBe(state.locations[0]);
    expect(packageIds(next, 2)).toEqual([1]);
  });
});

describe('shipments: PackageVoided', () => {
  const state = stateAfter(locationRecorded(1, 1), packageShipped(2, 1, 1), packageShipped(3, 1, 2));

  it('removes the package', () => {
    const next = evolveShipments(state, packageVoided(4, 1, 1));
    expect(packageIds(next, 1)).toEqual([2]);
    expect(next?.sequence).toBe(4);
  });

  it('voiding a package that is not there changes nothing but the sequence', () => {
    const next = evolveShipments(state, packageVoided(4, 1, 7));
    expect(next).not.toBe(state);
    expect(next).toStrictEqual({ ...state, sequence: 4 });
  });
});

describe('shipments: ShipmentCompleted', () => {
  const twoLocations = stateAfter(statusChanged(1), locationRecorded(2, 1), locationRecorded(3, 2), packageShipped(4, 1, 1));

  it('for a location marks that location complete; the sales order is complete once all are', () => {
    const first = evolveShipments(twoLocations, shipmentCompleted(5, 2));
    expect(first?.locations.map((l) => l.complete)).toEqual([false, true]);
    expect(first).toMatchObject({ complete: false, completedAsWhole: false });
    const both = evolveShipments(first, shipmentCompleted(6, 1));
    expect(both).toMatchObject({ complete: true, completedAsWhole: false });
  });

  it('without a location marks every location and the sales order complete', () => {
    const next = evolveShipments(twoLocations, shipmentCompleted(5));
    expect(next?.locations.map((l) => l.complete)).toEqual([true, true]);
    expect(next).toMatchObject({ complete: true, completedAsWhole: true, sequence: 5 });
  });

  it('without a location completes even a sales order with no location yet', () => {
    expect(evolveShipments(undefined, shipmentCompleted(1))).toMatchObject({ complete: true, completedAsWhole: true, locations: [] });
  });

  it('a location recorded after a whole completion starts incomplete; the sales order stays complete', () => {
    const next = evolveShipments(evolveShipments(twoLocations, shipmentCompleted(5)), locationRecorded(6, 3));
    expect(next?.locations.map((l) => l.complete)).toEqual([true, true, false]);
    expect(next).toMatchObject({ complete: true, completedAsWhole: true });
  });

  it('a location recorded after each location was completed makes the sales order incomplete again', () => {
    const done = evolveShipments(evolveShipments(twoLocations, shipmentCompleted(5, 1)), shipmentCompleted(6, 2));
    expect(done?.complete).toBe(true);
    expect(evolveShipments(done, locationRecorded(7, 3))?.complete).toBe(false);
  });

  it('no location means not complete', () => {
    expect(stateAfter(statusChanged(1)).complete).toBe(false);
  });
});

describe('shipments: events for a location that does not exist', () => {
  const state = stateAfter(locationRecorded(1, 1));

  it.each([
    ['PackageShipped', packageShipped(2, 3, 1)],
    ['PackageVoided', packageVoided(2, 3, 1)],
    ['ShipmentCompleted', shipmentCompleted(2, 3)],
  ] as const)('rejects %s', (_, event) => {
    expect(rejection(() => evolveShipments(state, event))).toBe('unknown location 3 for sales order C1:SO-9');
    expect(rejection(() => evolveShipments(undefined, event))).toBe('unknown location 3 for sales order C1:SO-9');
  });

  it('is an EventRejectedError', () => {
    expect(() => evolveShipments(state, packageShipped(2, 3, 1))).toThrow(EventRejectedError);
  });
});

describe('shipments: duplicates and replays', () => {
  const state = stateAfter(statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1), packageVoided(4, 1, 9));

  it.each([
    ['the same event again', packageVoided(4, 1, 9)],
    ['an older event', packageShipped(3, 1, 1, { trackingNumber: 'OTHER' })],
    ['an older status change', statusChanged(1, { purchaseOrderNumber: 'PO-OLD', statusId: 10 })],
    ['an older event for a missing location', packageShipped(2, 5, 1)],
    ['an older completion', shipmentCompleted(1)],
  ])('%s returns the same state', (_, event) => {
    expect(evolveShipments(state, event)).toBe(state);
  });
});
