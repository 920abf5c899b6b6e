import { describe, expect, it } from 'vitest';
import { locationRecorded, packageShipped, sampleEvent, shipmentCompleted, statusChanged } from '../test/fixtures/sample-events.js';
import { deepFreeze } from '../test/support/deep-freeze.js';
import { evolveOrderStatus } from './order-status.js';
import type { OrderStatusState } from './state.js';

const confirmed = sampleEvent(
  'SalesOrderStatusChanged',
  3,
  { purchaseOrderNumber: 'PO-1', statusId: 20, expectedShipDate: '2025-05-10T00:00:00-05:00', expectedDeliveryDate: '2025-05-14T00:00:00Z', responseRequired: false },
  { occurredAt: '2025-05-01T08:15:00-05:00' },
);

describe('order status: SalesOrderStatusChanged', () => {
  it('creates the state, with dates as Date objects', () => {
    expect(evolveOrderStatus(undefined, confirmed)).toStrictEqual({
      clientId: 'C1',
      salesOrderNumber: 'SO-9',
      sequence: 3,
      purchaseOrderNumber: 'PO-1',
      statusId: 20,
      open: true,
      expectedShipDate: new Date('2025-05-10T05:00:00Z'),
      expectedDeliveryDate: new Date('2025-05-14T00:00:00Z'),
      responseRequired: false,
      validTimestamp: new Date('2025-05-01T13:15:00Z'),
      statusSequence: 3,
      progressStatusId: 20,
      expectedShipDay: '2025-05-10',
      expectedDeliveryDay: '2025-05-14',
      lastOccurredAt: new Date('2025-05-01T13:15:00Z'),
    } satisfies OrderStatusState);
  });

  it('replaces the whole state: fields absent in the event are absent afterwards', () => {
    const before = deepFreeze(evolveOrderStatus(undefined, confirmed));
    const after = evolveOrderStatus(before, statusChanged(4, { statusId: 60 }));
    expect(after).toStrictEqual({
      clientId: 'C1',
      salesOrderNumber: 'SO-9',
      sequence: 4,
      statusId: 60,
      open: true,
      validTimestamp: new Date('2025-05-01T10:04:00Z'),
      statusSequence: 4,
      progressStatusId: 60,
      lastOccurredAt: new Date('2025-05-01T10:04:00Z'),
    });
    expect(Object.keys(after ?? {})).not.toContain('purchaseOrderNumber');
  });

  it.each([
    [80, false],
    [99, false],
    [75, true],
    [44, true],
  ] as const)('status %i is open: %s', (statusId, open) => {
    expect(evolveOrderStatus(undefined, statusChanged(1, { statusId }))?.open).toBe(open);
  });
});

describe('order status: guard and other events', () => {
  const state = deepFreeze(evolveOrderStatus(undefined, confirmed) as OrderStatusState);

  it('returns the same state for a duplicate or a replay', () => {
    expect(evolveOrderStatus(state, { ...confirmed, data: { statusId: 99 } })).toBe(state);
    expect(evolveOrderStatus(state, statusChanged(2, { statusId: 80 }))).toBe(state);
  });

  it('returns the state it was given for shipment events', () => {
    expect(evolveOrderStatus(state, locationRecorded(4, 1))).toBe(state);
    expect(evolveOrderStatus(state, packageShipped(5, 1, 1))).toBe(state);
    expect(evolveOrderStatus(state, shipmentCompleted(6))).toBe(state);
    expect(evolveOrderStatus(undefined, shipmentCompleted(6))).toBeUndefined();
  });
});
