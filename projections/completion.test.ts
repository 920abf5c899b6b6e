import { describe, expect, it } from 'vitest';
import { purchaseOrderComplete, salesOrderComplete } from './completion.js';
import type { LocationState, ShipmentsState } from './state.js';

const location = (locationId: number, complete: boolean): LocationState => ({
  locationId,
  complete,
  shipFrom: { address1: 'a', city: 'c', region: 'TX', postalCode: '75006' },
  shipTo: { address1: 'b', city: 'd', region: 'CO', postalCode: '80202' },
  packages: [],
});

const salesOrder = (salesOrderNumber: string, locations: LocationState[], completedAsWhole = false): ShipmentsState => {
  const state = { clientId: 'C1', salesOrderNumber, sequence: 1, purchaseOrderNumber: 'PO-1', completedAsWhole, locations };
  return { ...state, complete: salesOrderComplete(state) };
};

describe('sales order completion', () => {
  it('is complete when completed as a whole, even without locations', () => {
    expect(salesOrderComplete({ completedAsWhole: true, locations: [] })).toBe(true);
    expect(salesOrderComplete({ completedAsWhole: true, locations: [location(1, false)] })).toBe(true);
  });

  it('is complete when it has locations and every one is complete', () => {
    expect(salesOrderComplete({ completedAsWhole: false, locations: [] })).toBe(false);
    expect(salesOrderComplete({ completedAsWhole: false, locations: [location(1, true), location(2, false)] })).toBe(false);
    expect(salesOrderComplete({ completedAsWhole: false, locations: [location(1, true), location(2, true)] })).toBe(true);
  });
});

describe('purchase order completion', () => {
  const done = salesOrder('SO-1', [location(1, true)]);
  const wholeDone = salesOrder('SO-2', [], true);
  const shipping = salesOrder('SO-3', [location(1, true), location(2, false)]);
  const notShipping = salesOrder('SO-4', []);

  it('is complete when every sales order is', () => {
    expect(purchaseOrderComplete([done, wholeDone])).toBe(true);
  });

  it('is not complete while one sales order is still shipping or not shipping yet', () => {
    expect(purchaseOrderComplete([done, shipping])).toBe(false);
    expect(purchaseOrderComplete([done, wholeDone, notShipping])).toBe(false);
  });

  it('is not complete without sales orders', () => {
    expect(purchaseOrderComplete([])).toBe(false);
  });
});
